/**
 * The privacy class of every field of the arena events (docs/privacy.md): seasons, participants and instants are the
 * platform's facts; the reason an admin writes for a disqualification is that person's words (personal).
 */
import { declareEventClasses } from '../../../platform/privacy/field-classes';
import type { SeasonEvent } from './season';

export const ARENA_EVENT_CLASSES = declareEventClasses<SeasonEvent>('arena', {
  ArenaSeasonCreated: { season: 'internal' },
  ArenaSeasonScheduled: { season_uuid: 'internal', by_profile_uuid: 'internal', at: 'internal' },
  ArenaParticipantEnrolled: { season_uuid: 'internal', tenant_uuid: 'internal', profile_uuid: 'internal', by_profile_uuid: 'internal', at: 'internal' },
  ArenaParticipantDisqualified: { season_uuid: 'internal', profile_uuid: 'internal', reason: 'personal', by_profile_uuid: 'internal', at: 'internal' },
  ArenaSeasonStarted: { season_uuid: 'internal', tenant_uuid: 'internal', markets: 'internal', at: 'internal' },
  ArenaSeasonSettling: { season_uuid: 'internal', at: 'internal' },
  ArenaSeasonFinalized: { season_uuid: 'internal', at: 'internal' },
  ArenaSeasonCancelled: { season_uuid: 'internal', by_profile_uuid: 'internal', at: 'internal' },
});
