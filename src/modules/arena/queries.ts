/** Arena reads: the caller's tenant's seasons, and one season with its ranked leaderboard. */
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { parseDecimal } from '../../platform/decimal/fixed18';
import type { PageQuery } from '../../platform/http/pagination';
import { recordPage } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import type { SeasonRecord } from '../../../projections/arena-seasons/arena-seasons.read-model';
import type { StandingRecord } from './domain/standing';
import { ArenaAccess } from './arena-access';
import type { ArenaSeason, ArenaStanding } from './dto/responses.dto';

export const ARENA_PAGE = { default: 50, max: 200 };

const seasonView = (r: SeasonRecord, leaderboard: ArenaStanding[]): ArenaSeason => ({
  season_uuid: r.season_uuid, tenant_uuid: r.tenant_uuid, name: r.name, markets: r.markets, starts_at: r.starts_at, ends_at: r.ends_at, status: r.status, version: r.version,
  started_position: r.started_position, settled_position: r.settled_position, created_by_profile_uuid: r.created_by_profile_uuid, created_at: r.created_at, updated_at: r.updated_at, leaderboard,
});

/** Ranked by realised P&L (exact), then fewer trades, then earlier enrolment; disqualified participants unranked, last. */
export function rankStandings(standings: StandingRecord[]): ArenaStanding[] {
  const signed = { allowSign: true } as const;
  const qualified = standings
    .filter((s) => !s.disqualified)
    .sort((a, b) => {
      const d = parseDecimal(b.realized_pnl, signed) - parseDecimal(a.realized_pnl, signed);
      return d !== 0n ? (d > 0n ? 1 : -1) : a.trades - b.trades || a.enrolled_at.localeCompare(b.enrolled_at) || a.profile_uuid.localeCompare(b.profile_uuid);
    });
  const view = (s: StandingRecord, rank: number | null): ArenaStanding => ({
    rank, profile_uuid: s.profile_uuid, realized_pnl: s.realized_pnl, trades: s.trades, markets: s.markets, positions: s.positions, disqualified: s.disqualified,
    disqualification_reason: s.disqualification_reason, enrolled_at: s.enrolled_at,
  });
  return [...qualified.map((s, i) => view(s, i + 1)), ...standings.filter((s) => s.disqualified).map((s) => view(s, null))];
}

export class GetArenaSeason {
  constructor(readonly principal: Principal, readonly season_uuid: string) {}
}

@QueryHandler(GetArenaSeason)
export class GetArenaSeasonHandler implements IQueryHandler<GetArenaSeason> {
  constructor(private readonly db: ReadModelDatabase, private readonly access: ArenaAccess) {}

  async execute({ principal, season_uuid }: GetArenaSeason): Promise<ArenaSeason> {
    const season = await this.access.season(principal, season_uuid);
    const rows: Array<{ record: string }> = await this.db.reader.query(this.db.sql('SELECT record FROM arena_standings WHERE season_uuid = ?'), [season_uuid]);
    return seasonView(season, rankStandings(rows.map((r) => JSON.parse(r.record) as StandingRecord)));
  }
}

export class ListArenaSeasons {
  constructor(readonly principal: Principal, readonly query: PageQuery) {}
}

@QueryHandler(ListArenaSeasons)
export class ListArenaSeasonsHandler implements IQueryHandler<ListArenaSeasons> {
  constructor(private readonly db: ReadModelDatabase, private readonly access: ArenaAccess) {}

  async execute({ principal, query }: ListArenaSeasons): Promise<object> {
    const tenant = await this.access.tenant(principal);
    const { records, ...page } = await recordPage<SeasonRecord>(this.db, 'arena_seasons', [['tenant_uuid = ?', tenant]], query, ARENA_PAGE, JSON.stringify(['arena', tenant]));
    return { seasons: records.map((r) => seasonView(r, [])), ...page };
  }
}
