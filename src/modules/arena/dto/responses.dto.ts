/**
 * Answers of the arena administration routes, each in the seeds' ArenaAdminResponse envelope: exactly
 * `{ "success": true, "data": … }`, data a projection of the caller's tenant.
 */
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { HEX32_ID } from '../../../platform/http/api-properties';
import { SEASON_STATUSES } from '../domain/season';

const TIME = { format: 'date-time' } as const;
const PNL = { description: 'Realised P&L in the quote currency, an exact decimal string (signed).', example: '-12.5' } as const;

export class ArenaMarketPosition {
  @ApiProperty({ description: 'Signed net quantity.' }) quantity!: string;
  @ApiProperty() entry_price!: string;
  @ApiProperty(PNL) realized_pnl!: string;
}

export class ArenaStanding {
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1, description: 'Rank by realised P&L (then fewer trades, then enrolment); null for a disqualified participant.' }) rank!: number | null;
  @ApiProperty(HEX32_ID) profile_uuid!: string;
  @ApiProperty(PNL) realized_pnl!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) trades!: number;
  @ApiProperty({ type: [String], description: 'Market symbols traded in the season.' }) markets!: string[];
  @ApiProperty({ type: 'object', additionalProperties: { $ref: '#/components/schemas/ArenaMarketPosition' } }) positions!: Record<string, ArenaMarketPosition>;
  @ApiProperty() disqualified!: boolean;
  @ApiProperty({ type: String, nullable: true }) disqualification_reason!: string | null;
  @ApiProperty(TIME) enrolled_at!: string;
}

export class ArenaSeason {
  @ApiProperty(HEX32_ID) season_uuid!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: [String] }) markets!: string[];
  @ApiProperty(TIME) starts_at!: string;
  @ApiProperty(TIME) ends_at!: string;
  @ApiProperty({ enum: SEASON_STATUSES }) status!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) version!: number;
  @ApiProperty({ type: String, nullable: true, description: 'Log position of the season\'s start: trades after it count.' }) started_position!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Log position of the settle: trades after it do not count; the leaderboard is frozen there.' }) settled_position!: string | null;
  @ApiProperty(HEX32_ID) created_by_profile_uuid!: string;
  @ApiProperty(TIME) created_at!: string;
  @ApiProperty(TIME) updated_at!: string;
  @ApiProperty({ type: [ArenaStanding], description: 'The leaderboard, ranked.' }) leaderboard!: ArenaStanding[];
}

export class ArenaSeasonList {
  @ApiProperty({ type: [ArenaSeason], description: 'Newest first, without their leaderboards (each season\'s route has it).' }) seasons!: ArenaSeason[];
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 200 }) limit!: number;
  @ApiPropertyOptional({ description: 'Opaque; omitted when the list is complete.' }) next_cursor?: string;
}

export class ArenaCommandReceipt {
  @ApiProperty(HEX32_ID) id!: string;
}

/**
 * The seeds' ArenaAdminResponse (001): `success` (true) and `data`, the tenant-scoped projection the operation
 * answers — a season (ArenaSeason), a page of seasons (ArenaSeasonList), or a command's `{ id }` (ArenaCommandReceipt)
 * when its read model had not caught up in time (202). One component, generic over its data; each operation says
 * which data it answers.
 */
export class ArenaAdminResponse {
  @ApiProperty({ type: 'boolean', enum: [true] }) success!: true;
  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(ArenaSeason) }, { $ref: getSchemaPath(ArenaSeasonList) }, { $ref: getSchemaPath(ArenaCommandReceipt) }],
    description: 'The tenant-scoped projection: a season, a page of seasons, or (202) the id a pending command acted on.',
  })
  data!: ArenaSeason | ArenaSeasonList | ArenaCommandReceipt;
}

/** The descriptions of the arena's answers: which data each carries. */
export const ARENA_SEASON_ANSWER = 'ArenaAdminResponse whose data is the season (ArenaSeason).';
export const ARENA_LIST_ANSWER = 'ArenaAdminResponse whose data is a page of seasons (ArenaSeasonList).';
export const ARENA_COMMAND_ANSWER = `Done; the read models this command affects include it: ${ARENA_SEASON_ANSWER}`;
