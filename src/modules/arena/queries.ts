/** Arena reads: the caller's tenant's seasons, and one season with its ranked leaderboard. */
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import type { PageQuery } from '../../platform/http/pagination';
import { recordPage } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import type { SeasonRecord } from '../../../projections/arena-seasons/arena-seasons.read-model';
import { rankStandings, seasonView } from '../../../projections/arena-seasons/season-view';
import type { StandingRecord } from './domain/standing';
import { ArenaAccess } from './arena-access';
import type { ArenaSeason } from './dto/responses.dto';

export const ARENA_PAGE = { default: 50, max: 200 };

/** The leaderboard's ranking: the read model's (projections/arena-seasons/season-view.ts), which its topic uses too. */
export { rankStandings };

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
