/**
 * Which jobs a member runs, from patterns (acceptingJobs, src/platform/jobs/job-assignment.ts): the worker threads of
 * one process each take their kind, an engine thread the markets' engines and the background thread the rest.
 */
import { acceptingJobs } from '../../src/platform/jobs/job-assignment';

const JOBS = ['engine:0f3a', 'engine:9b1c', 'billing-rater', 'projector-ledger', 'sweep:intents', 'audit-checkpointer'];
const accepted = (patterns: string[]): string[] => JOBS.filter(acceptingJobs(patterns));

describe('acceptingJobs', () => {
  it('given a prefix pattern, then only the jobs it starts', () => {
    expect(accepted(['engine:*'])).toEqual(['engine:0f3a', 'engine:9b1c']);
  });

  it('given every job but a prefix, then the rest, and the two together cover every job exactly once', () => {
    const rest = accepted(['*', '!engine:*']);
    expect(rest).toEqual(['billing-rater', 'projector-ledger', 'sweep:intents', 'audit-checkpointer']);
    expect([...accepted(['engine:*']), ...rest].sort()).toEqual([...JOBS].sort());
  });

  it('given names, then those jobs only, a name matching itself and not a longer one', () => {
    expect(accepted(['billing-rater', 'engine:0f3a'])).toEqual(['engine:0f3a', 'billing-rater']);
    expect(acceptingJobs(['engine:0f3'])('engine:0f3a')).toBe(false);
  });

  it('given a refusal of a name, then it wins over a pattern that accepts it', () => {
    expect(accepted(['*', '!billing-rater'])).not.toContain('billing-rater');
    expect(accepted(['*', '!billing-rater'])).toHaveLength(JOBS.length - 1);
  });

  it('given no patterns, or refusals only, then no job (the HTTP thread runs none)', () => {
    expect(accepted([])).toEqual([]);
    expect(accepted(['!engine:*'])).toEqual([]);
  });

  it('given a * that is not at the end, or an empty pattern, then it is refused at once', () => {
    expect(() => acceptingJobs(['engine:*:x'])).toThrow(/job pattern "engine:\*:x"/);
    expect(() => acceptingJobs(['!'])).toThrow(/job pattern/);
    expect(() => acceptingJobs([''])).toThrow(/job pattern/);
  });
});
