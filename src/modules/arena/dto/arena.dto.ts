/** Requests of the arena administration routes (all refuse fields they do not know). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsInt, IsISO8601, IsString, Length, Matches, Min } from 'class-validator';
import { hex32Param } from '../../../platform/http/api-properties';
import { NoExtraFields, Optional } from '../../../platform/http/validation';

const HEX32 = /^[0-9a-f]{32}$/;

export class SeasonParam {
  @ApiProperty(hex32Param('The season')) @Matches(HEX32, { message: 'season_uuid must be 32 lowercase hex characters' })
  season_uuid!: string;
}

export class ParticipantParam extends SeasonParam {
  @ApiProperty(hex32Param('The participant')) @Matches(HEX32, { message: 'profile_uuid must be 32 lowercase hex characters' })
  profile_uuid!: string;
}

@NoExtraFields()
export class CreateArenaSeasonRequest {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'December sprint' }) @IsString() @Length(1, 120)
  name!: string;

  @ApiPropertyOptional({ type: [String], maxItems: 50, description: 'Market symbols whose trades count; omitted or empty: every market.', example: ['BTC-PERP'] })
  @Optional() @IsArray() @ArrayMaxSize(50) @Matches(/^[A-Z0-9][A-Z0-9:._-]{0,39}$/, { each: true, message: 'each market must be a market symbol' })
  markets?: string[];

  @ApiProperty({ format: 'date-time' }) @IsISO8601({ strict: true, strictSeparator: true }, { message: 'starts_at must be an RFC 3339 date-time' })
  starts_at!: string;

  @ApiProperty({ format: 'date-time' }) @IsISO8601({ strict: true, strictSeparator: true }, { message: 'ends_at must be an RFC 3339 date-time' })
  ends_at!: string;
}

@NoExtraFields()
export class ArenaTransitionRequest {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'The version you read (409 VERSION_CONFLICT with current_version if it changed).' }) @IsInt() @Min(0)
  expected_version!: number;
}

@NoExtraFields()
export class EnrollArenaParticipantRequest {
  @ApiProperty(hex32Param('A person of the tenant')) @Matches(HEX32, { message: 'profile_uuid must be 32 lowercase hex characters' })
  profile_uuid!: string;
}

@NoExtraFields()
export class DisqualifyArenaParticipantRequest {
  @ApiProperty({ minLength: 8, maxLength: 320, description: 'Why (the participant\'s standing stays, out of the ranking).' }) @IsString() @Length(8, 320)
  reason!: string;
}
