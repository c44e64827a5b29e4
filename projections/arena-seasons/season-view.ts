/**
 * A season as the API shows it (the seeds' ArenaSeason with its ranked leaderboard, docs/arena.md) and as its topic
 * (`<prefix>.projections.arena-seasons`) carries it: one function for both, so the two cannot drift. The topic's
 * record leaves out each standing's `disqualification_reason` (the words an admin wrote: personal, docs/privacy.md).
 */
import { parseDecimal } from '../../src/platform/decimal/fixed18';
import type { SeasonCore, SeasonStatus } from '../../src/modules/arena/domain/season';
import type { StandingRecord } from '../../src/modules/arena/domain/standing';

/** A season as the read model keeps it (`arena_seasons.record`). */
export interface SeasonRecord extends SeasonCore {
  status: SeasonStatus;
  version: number;
  updated_at: string;
  /** Log positions of the ArenaSeasonStarted and ArenaSeasonSettling events: the season's window. */
  started_position: string | null;
  settled_position: string | null;
}

/** One row of the leaderboard (the seeds' ArenaStanding). */
export interface ArenaStandingView {
  rank: number | null;
  profile_uuid: string;
  realized_pnl: string;
  trades: number;
  markets: string[];
  positions: StandingRecord['positions'];
  disqualified: boolean;
  disqualification_reason: string | null;
  enrolled_at: string;
}

/** The seeds' ArenaSeason. */
export interface ArenaSeasonView<S = ArenaStandingView> {
  season_uuid: string;
  tenant_uuid: string;
  name: string;
  markets: string[];
  starts_at: string;
  ends_at: string;
  status: string;
  version: number;
  started_position: string | null;
  settled_position: string | null;
  created_by_profile_uuid: string;
  created_at: string;
  updated_at: string;
  leaderboard: S[];
}

export const seasonView = <S>(r: SeasonRecord, leaderboard: S[]): ArenaSeasonView<S> => ({
  season_uuid: r.season_uuid, tenant_uuid: r.tenant_uuid, name: r.name, markets: r.markets, starts_at: r.starts_at, ends_at: r.ends_at, status: r.status, version: r.version,
  started_position: r.started_position, settled_position: r.settled_position, created_by_profile_uuid: r.created_by_profile_uuid, created_at: r.created_at, updated_at: r.updated_at, leaderboard,
});

/**
 * Ranked by realised P&L (exact), then fewer trades, then earlier enrolment; disqualified participants unranked, last
 * (by enrolment): the order depends on the standings alone, not on the order the database returns them in.
 */
export function rankStandings(standings: StandingRecord[]): ArenaStandingView[] {
  const signed = { allowSign: true } as const;
  const byEnrolment = (a: StandingRecord, b: StandingRecord) => a.enrolled_at.localeCompare(b.enrolled_at) || a.profile_uuid.localeCompare(b.profile_uuid);
  const qualified = standings
    .filter((s) => !s.disqualified)
    .sort((a, b) => {
      const d = parseDecimal(b.realized_pnl, signed) - parseDecimal(a.realized_pnl, signed);
      return d !== 0n ? (d > 0n ? 1 : -1) : a.trades - b.trades || byEnrolment(a, b);
    });
  const view = (s: StandingRecord, rank: number | null): ArenaStandingView => ({
    rank, profile_uuid: s.profile_uuid, realized_pnl: s.realized_pnl, trades: s.trades, markets: s.markets, positions: s.positions, disqualified: s.disqualified,
    disqualification_reason: s.disqualification_reason, enrolled_at: s.enrolled_at,
  });
  return [...qualified.map((s, i) => view(s, i + 1)), ...standings.filter((s) => s.disqualified).sort(byEnrolment).map((s) => view(s, null))];
}

/** A standing as the topic carries it: the leaderboard's row without the disqualification's reason. */
export type PublishedStanding = Omit<ArenaStandingView, 'disqualification_reason'>;

/** The season's record on its topic: the API's, each standing without its disqualification_reason. */
export function publishedSeason(r: SeasonRecord, standings: StandingRecord[]): ArenaSeasonView<PublishedStanding> {
  return seasonView(r, rankStandings(standings).map(({ disqualification_reason: _reason, ...s }) => s));
}
