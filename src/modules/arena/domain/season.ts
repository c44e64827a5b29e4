/**
 * An arena season (pure decider): a trading competition between people of one tenant on the platform's own
 * markets, one stream per season (`arena-season-<uuid>`; version = revision).
 *
 * DRAFT → SCHEDULED → LIVE → SETTLING → FINAL, or CANCELLED from DRAFT, SCHEDULED or LIVE. Admins create, schedule,
 * enroll and disqualify; the arena clock (a leased job) starts a SCHEDULED season at `starts_at`, settles a LIVE one at
 * `ends_at` and finalizes it once the leaderboard has passed the settle. The leaderboard counts the trades between the
 * ArenaSeasonStarted event and the ArenaSeasonSettling event in log order: the window is exact in log positions, so
 * the standings are frozen exactly at the season's end position, on every replay.
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { PlatformError, StateConflict, ValidationFailed } from '../../../platform/errors';

export const seasonStream = (season_uuid: string): string => `arena-season-${season_uuid}`;
export const SEASON_STATUSES = ['DRAFT', 'SCHEDULED', 'LIVE', 'SETTLING', 'FINAL', 'CANCELLED'] as const;
export type SeasonStatus = (typeof SEASON_STATUSES)[number];

export interface SeasonCore {
  season_uuid: string;
  tenant_uuid: string;
  name: string;
  /** Market symbols whose trades count; empty: every market. */
  markets: string[];
  starts_at: string;
  ends_at: string;
  created_by_profile_uuid: string;
  created_at: string;
}

export type SeasonEvent =
  | { type: 'ArenaSeasonCreated'; data: { season: SeasonCore } }
  | { type: 'ArenaSeasonScheduled'; data: { season_uuid: string; by_profile_uuid: string; at: string } }
  | { type: 'ArenaParticipantEnrolled'; data: { season_uuid: string; tenant_uuid: string; profile_uuid: string; by_profile_uuid: string; at: string } }
  | { type: 'ArenaParticipantDisqualified'; data: { season_uuid: string; profile_uuid: string; reason: string; by_profile_uuid: string; at: string } }
  | { type: 'ArenaSeasonStarted'; data: { season_uuid: string; tenant_uuid: string; markets: string[]; at: string } }
  | { type: 'ArenaSeasonSettling'; data: { season_uuid: string; at: string } }
  | { type: 'ArenaSeasonFinalized'; data: { season_uuid: string; at: string } }
  | { type: 'ArenaSeasonCancelled'; data: { season_uuid: string; by_profile_uuid: string; at: string } };

export interface SeasonState {
  season: SeasonCore | null;
  status: SeasonStatus;
  participants: Record<string, { disqualified: boolean }>;
  version: number;
}

export type SeasonCommand =
  | { kind: 'CreateSeason'; season: SeasonCore }
  | { kind: 'ScheduleSeason'; by_profile_uuid: string }
  | { kind: 'Enroll'; profile_uuid: string; by_profile_uuid: string }
  | { kind: 'Disqualify'; profile_uuid: string; reason: string; by_profile_uuid: string }
  | { kind: 'CancelSeason'; by_profile_uuid: string }
  /** The arena clock: start at starts_at, settle at ends_at; nothing when it is not time. */
  | { kind: 'Tick' }
  /** The arena clock, once the leaderboard has passed the settle. */
  | { kind: 'Finalize' };

export class SeasonNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such arena season.');
  }
}

const refuse = (status: SeasonStatus, action: string, allowed: string): StateConflict =>
  new StateConflict(`A ${status} season cannot be ${action}.`, { details: [{ field: 'status', issue: `${status}; ${action} needs ${allowed}` }] });

function evolve(state: SeasonState, event: SeasonEvent): SeasonState {
  const s = { ...state, version: state.version + 1 };
  switch (event.type) {
    case 'ArenaSeasonCreated':
      return { ...s, season: event.data.season, status: 'DRAFT' };
    case 'ArenaSeasonScheduled':
      return { ...s, status: 'SCHEDULED' };
    case 'ArenaParticipantEnrolled':
      return { ...s, participants: { ...s.participants, [event.data.profile_uuid]: { disqualified: false } } };
    case 'ArenaParticipantDisqualified':
      return { ...s, participants: { ...s.participants, [event.data.profile_uuid]: { disqualified: true } } };
    case 'ArenaSeasonStarted':
      return { ...s, status: 'LIVE' };
    case 'ArenaSeasonSettling':
      return { ...s, status: 'SETTLING' };
    case 'ArenaSeasonFinalized':
      return { ...s, status: 'FINAL' };
    case 'ArenaSeasonCancelled':
      return { ...s, status: 'CANCELLED' };
  }
}

function decide(command: SeasonCommand, state: SeasonState, ctx: DecideContext): SeasonEvent[] {
  const at = ctx.now.toISOString();
  if (command.kind === 'CreateSeason') {
    if (state.season) return [];
    const { starts_at, ends_at } = command.season;
    if (Date.parse(ends_at) <= Date.parse(starts_at)) throw new ValidationFailed('A season ends after it starts.', [{ field: 'ends_at', issue: 'must be after starts_at' }]);
    return [{ type: 'ArenaSeasonCreated', data: { season: command.season } }];
  }
  const season = state.season;
  if (!season) throw new SeasonNotFound();
  const season_uuid = season.season_uuid;
  switch (command.kind) {
    case 'ScheduleSeason':
      if (state.status !== 'DRAFT') throw refuse(state.status, 'scheduled', 'DRAFT');
      if (Date.parse(season.starts_at) <= ctx.now.getTime()) throw new ValidationFailed('The season would start in the past.', [{ field: 'starts_at', issue: 'must be in the future to schedule' }]);
      return [{ type: 'ArenaSeasonScheduled', data: { season_uuid, by_profile_uuid: command.by_profile_uuid, at } }];
    case 'Enroll':
      if (state.status !== 'DRAFT' && state.status !== 'SCHEDULED' && state.status !== 'LIVE') throw refuse(state.status, 'joined', 'DRAFT, SCHEDULED or LIVE');
      if (state.participants[command.profile_uuid]) {
        if (state.participants[command.profile_uuid].disqualified) throw new StateConflict('A disqualified participant does not come back.', { details: [{ field: 'profile_uuid', issue: 'disqualified' }] });
        return [];
      }
      return [{ type: 'ArenaParticipantEnrolled', data: { season_uuid, tenant_uuid: season.tenant_uuid, profile_uuid: command.profile_uuid, by_profile_uuid: command.by_profile_uuid, at } }];
    case 'Disqualify': {
      const p = state.participants[command.profile_uuid];
      if (!p) throw new PlatformError('NOT_FOUND', 'No such participant in this season.');
      if (state.status === 'FINAL' || state.status === 'CANCELLED') throw refuse(state.status, 'changed', 'a season not FINAL or CANCELLED');
      if (p.disqualified) return [];
      return [{ type: 'ArenaParticipantDisqualified', data: { season_uuid, profile_uuid: command.profile_uuid, reason: command.reason, by_profile_uuid: command.by_profile_uuid, at } }];
    }
    case 'CancelSeason':
      if (state.status !== 'DRAFT' && state.status !== 'SCHEDULED' && state.status !== 'LIVE') throw refuse(state.status, 'cancelled', 'DRAFT, SCHEDULED or LIVE');
      return [{ type: 'ArenaSeasonCancelled', data: { season_uuid, by_profile_uuid: command.by_profile_uuid, at } }];
    case 'Tick': {
      const now = ctx.now.getTime();
      const events: SeasonEvent[] = [];
      let status = state.status;
      if (status === 'SCHEDULED' && now >= Date.parse(season.starts_at)) {
        events.push({ type: 'ArenaSeasonStarted', data: { season_uuid, tenant_uuid: season.tenant_uuid, markets: season.markets, at } });
        status = 'LIVE';
      }
      // Settling in its own append (after the start's): the window between the two events is the season.
      if (status === 'LIVE' && events.length === 0 && now >= Date.parse(season.ends_at)) events.push({ type: 'ArenaSeasonSettling', data: { season_uuid, at } });
      return events;
    }
    case 'Finalize':
      if (state.status !== 'SETTLING') return [];
      return [{ type: 'ArenaSeasonFinalized', data: { season_uuid, at } }];
  }
}

export const seasonDecider: Decider<SeasonCommand, SeasonState, SeasonEvent> = {
  initialState: () => ({ season: null, status: 'DRAFT', participants: {}, version: -1 }),
  evolve,
  decide,
};
