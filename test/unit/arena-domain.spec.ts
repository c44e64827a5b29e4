/** The arena season decider and the leaderboard's ranking, given/when/then. */
import { seasonDecider, type SeasonCommand, type SeasonState } from '../../src/modules/arena/domain/season';
import { rankStandings } from '../../src/modules/arena/queries';
import { sidesOf, withFill, type StandingRecord } from '../../src/modules/arena/domain/standing';
import { PlatformError } from '../../src/platform/errors';

const T0 = new Date('2026-11-25T10:00:00.000Z');
const BY = 'e'.repeat(32);
const P = 'a'.repeat(32);
const create: SeasonCommand = {
  kind: 'CreateSeason',
  season: { season_uuid: 's'.repeat(32), tenant_uuid: 't'.repeat(32), name: 'Sprint', markets: [], starts_at: '2026-11-25T11:00:00.000Z', ends_at: '2026-11-25T12:00:00.000Z', created_by_profile_uuid: BY, created_at: T0.toISOString() },
};
function given(steps: Array<SeasonCommand | [SeasonCommand, Date]>): SeasonState {
  let s = seasonDecider.initialState();
  for (const step of steps) {
    const [c, now] = Array.isArray(step) ? step : [step, T0];
    for (const e of seasonDecider.decide(c, s, { now, newId: () => '' })) s = seasonDecider.evolve(s, e);
  }
  return s;
}
const refusal = (steps: SeasonCommand[], c: SeasonCommand, now = T0): string => {
  try {
    seasonDecider.decide(c, given(steps), { now, newId: () => '' });
    return 'accepted';
  } catch (e) {
    return `${(e as PlatformError).code} ${(e as PlatformError).details.map((d) => d.issue).join()}`;
  }
};

describe('arena season', () => {
  it('given a scheduled season, the clock starts it at starts_at and settles it at ends_at in separate appends, then finalizes once', () => {
    const scheduled: Array<SeasonCommand | [SeasonCommand, Date]> = [create, { kind: 'ScheduleSeason', by_profile_uuid: BY }];
    expect(seasonDecider.decide({ kind: 'Tick' }, given(scheduled), { now: new Date('2026-11-25T10:59:59.999Z'), newId: () => '' })).toEqual([]);
    // After downtime past both instants: the start first, the settle at the next tick (the window is between them).
    const late = new Date('2026-11-25T13:00:00.000Z');
    expect(seasonDecider.decide({ kind: 'Tick' }, given(scheduled), { now: late, newId: () => '' }).map((e) => e.type)).toEqual(['ArenaSeasonStarted']);
    const live = given([...scheduled, [{ kind: 'Tick' }, late]]);
    expect(seasonDecider.decide({ kind: 'Tick' }, live, { now: late, newId: () => '' }).map((e) => e.type)).toEqual(['ArenaSeasonSettling']);
    const final = given([...scheduled, [{ kind: 'Tick' }, late], [{ kind: 'Tick' }, late], { kind: 'Finalize' }]);
    expect(final.status).toBe('FINAL');
    expect(seasonDecider.decide({ kind: 'Finalize' }, final, { now: late, newId: () => '' })).toEqual([]);
  });

  it('enrolment, disqualification and cancellation hold to their states', () => {
    const enrolled = given([create, { kind: 'Enroll', profile_uuid: P, by_profile_uuid: BY }, { kind: 'Enroll', profile_uuid: P, by_profile_uuid: BY }]);
    expect([enrolled.participants, enrolled.version]).toEqual([{ [P]: { disqualified: false } }, 1]);
    const out = [create, { kind: 'Enroll', profile_uuid: P, by_profile_uuid: BY }, { kind: 'Disqualify', profile_uuid: P, reason: 'Wash trading', by_profile_uuid: BY }] as SeasonCommand[];
    expect(refusal(out, { kind: 'Enroll', profile_uuid: P, by_profile_uuid: BY })).toBe('STATE_CONFLICT disqualified');
    expect(refusal([create], { kind: 'Disqualify', profile_uuid: P, reason: 'x', by_profile_uuid: BY })).toBe('NOT_FOUND ');
    expect(refusal([create, { kind: 'CancelSeason', by_profile_uuid: BY }], { kind: 'ScheduleSeason', by_profile_uuid: BY })).toBe('STATE_CONFLICT CANCELLED; scheduled needs DRAFT');
    expect(refusal([create], { kind: 'ScheduleSeason', by_profile_uuid: BY }, new Date('2026-11-25T11:00:00.000Z'))).toBe('VALIDATION_FAILED must be in the future to schedule');
  });

  it('given fills, the standing realises P&L exactly per market and counts trades and markets', () => {
    const start: StandingRecord = { season_uuid: 's', profile_uuid: P, disqualified: false, disqualification_reason: null, realized_pnl: '0', trades: 0, markets: [], positions: {}, enrolled_at: T0.toISOString() };
    const after = [
      ['BTC-PERP', 'BUY', '50000', '0.010'],
      ['ETH-PERP', 'SELL', '3000.1', '0.3'],
      ['BTC-PERP', 'SELL', '51000.000000000000000001', '0.010'],
      ['ETH-PERP', 'BUY', '3000.3', '0.3'],
    ].reduce((st, [m, side, price, size]) => withFill(st, m, side as 'BUY' | 'SELL', price, size), start);
    expect([after.realized_pnl, after.trades, after.markets]).toEqual(['9.94', 4, ['BTC-PERP', 'ETH-PERP']]);
    expect(after.positions['ETH-PERP'].realized_pnl).toBe('-0.060000000000000000');
    expect(sidesOf({ taker_profile_uuid: 'T', maker_profile_uuid: 'M', taker_side: 'SELL' } as never)).toEqual([['T', 'SELL'], ['M', 'BUY']]);
  });

  it('ranks by exact realised P&L, then fewer trades, then earlier enrolment; the disqualified unranked, last', () => {
    const s = (profile_uuid: string, realized_pnl: string, trades: number, disqualified = false, enrolled_at = T0.toISOString()): StandingRecord => ({
      season_uuid: 's', profile_uuid, disqualified, disqualification_reason: null, realized_pnl, trades, markets: [], positions: {}, enrolled_at,
    });
    const board = rankStandings([s('a', '0.000000000000000001', 5), s('b', '100', 1, true), s('c', '0.000000000000000001', 3), s('d', '-5', 1), s('e', '0', 1)]);
    expect(board.map((x) => [x.rank, x.profile_uuid])).toEqual([[1, 'c'], [2, 'a'], [3, 'e'], [4, 'd'], [null, 'b']]);
  });
});
