/** Request shapes of the audit routes (class-validator). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';
import { PageQuery } from '../../../platform/http/pagination';
import { Optional } from '../../../platform/http/validation';
import { hex32Param } from '../../../platform/http/api-properties';

export class StreamParam {
  @ApiProperty({ description: 'Stream name, e.g. mtf-order-<order_uuid>.' })
  @IsString()
  @Length(1, 512)
  stream!: string;
}

export class StreamEventsQuery extends PageQuery {}

export class ProfileParam {
  @ApiProperty(hex32Param('The auditor profile'))
  @Matches(/^[0-9a-f]{32}$/, { message: 'profile_uuid must be 32 lowercase hex characters' })
  profile_uuid!: string;
}

export class GrantAuditorRequest {
  @ApiProperty({ description: 'The profile that receives the AUDITOR role.' })
  @Matches(/^[0-9a-f]{32}$/, { message: 'profile_uuid must be 32 lowercase hex characters' })
  profile_uuid!: string;

  @ApiPropertyOptional({ description: 'Why (kept in the grant event).', example: 'External audit 2026' })
  @Optional()
  @IsString()
  @Length(1, 500)
  reason?: string;
}

export class RevokeAuditorRequest {
  @ApiPropertyOptional({ example: 'Audit concluded' })
  @Optional()
  @IsString()
  @Length(1, 500)
  reason?: string;
}

const TREE_SIZE = /^[1-9][0-9]{0,15}$/;

export class InclusionProofQuery {
  @ApiProperty(hex32Param('The event whose inclusion is proven'))
  @Matches(/^[0-9a-f]{32}$/, { message: 'event_id must be 32 lowercase hex characters' })
  event_id!: string;

  @ApiPropertyOptional({ description: 'The tree size of a signed checkpoint to prove against (decimal); default: the newest checkpoint.', example: '1000', pattern: TREE_SIZE.source })
  @Optional()
  @Matches(TREE_SIZE, { message: 'tree_size must be a positive decimal integer (a checkpoint\'s tree_size)' })
  tree_size?: string;
}

export class ConsistencyProofQuery {
  @ApiProperty({ description: 'The older checkpoint\'s tree_size (decimal).', example: '500', pattern: TREE_SIZE.source })
  @Matches(TREE_SIZE, { message: 'first must be a positive decimal integer (a checkpoint\'s tree_size)' })
  first!: string;

  @ApiProperty({ description: 'The newer checkpoint\'s tree_size (decimal), at least `first`.', example: '1000', pattern: TREE_SIZE.source })
  @Matches(TREE_SIZE, { message: 'second must be a positive decimal integer (a checkpoint\'s tree_size)' })
  second!: string;
}
