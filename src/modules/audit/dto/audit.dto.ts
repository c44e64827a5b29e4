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
