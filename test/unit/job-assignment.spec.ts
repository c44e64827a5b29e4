/**
 * The jobs' assignment to the live nodes (src/platform/jobs/job-assignment.ts), a pure function: given the members and
 * who holds each lease, when it is computed, then every job has one node, the share is balanced per class, jobs stay
 * where they run within a node's share, and the answer does not depend on the order the rows were read in.
 */
import { assignJobs, jobClass, type Member } from '../../src/platform/jobs/job-assignment';

const PROJECTORS = Array.from({ length: 27 }, (_, i) => `projector-${String(i).padStart(2, '0')}`);
const ENGINES = ['engine:btc', 'engine:eth', 'engine:sol'];
const EVERY_JOB = [...PROJECTORS, ...ENGINES];
const node = (owner: string, jobs: readonly string[] = EVERY_JOB): Member => ({ owner, jobs });
const countBy = (assigned: Map<string, string>, owner: string, cls?: 'engine' | 'other'): number =>
  [...assigned].filter(([job, o]) => o === owner && (cls === undefined || jobClass(job) === cls)).length;
const none = new Map<string, string | null>();

describe('assignJobs', () => {
  it('given three nodes and no lease held, then every job has one node, the engines one each, and none holds more than 40%', () => {
    const owners = ['a#1', 'b#1', 'c#1'];
    const assigned = assignJobs(owners.map((o) => node(o)), none);
    expect([...assigned.keys()].sort()).toEqual([...EVERY_JOB].sort());
    for (const owner of owners) {
      expect(countBy(assigned, owner, 'engine')).toBe(1);
      expect(countBy(assigned, owner, 'other')).toBe(9);
      expect(countBy(assigned, owner) / EVERY_JOB.length).toBeLessThanOrEqual(0.4);
    }
  });

  it('given one node holding every job, when two more join, then it keeps its share of what it holds and hands the rest off', () => {
    const holders = new Map(EVERY_JOB.map((job) => [job, 'a#1']));
    const assigned = assignJobs([node('a#1'), node('b#1'), node('c#1')], holders);
    expect(countBy(assigned, 'a#1', 'other')).toBe(9);
    expect(countBy(assigned, 'a#1', 'engine')).toBe(1);
    for (const owner of ['b#1', 'c#1']) expect(countBy(assigned, owner)).toBe(10);
  });

  it('given three balanced nodes, when one leaves, then only its jobs move and the two left share them', () => {
    const before = assignJobs([node('a#1'), node('b#1'), node('c#1')], none);
    const holders = new Map([...before].map(([job, owner]) => [job, owner === 'c#1' ? null : owner]));
    const after = assignJobs([node('a#1'), node('b#1')], holders);
    for (const [job, owner] of before) if (owner !== 'c#1') expect(`${job} ${after.get(job)}`).toBe(`${job} ${owner}`);
    expect(countBy(after, 'a#1') + countBy(after, 'b#1')).toBe(EVERY_JOB.length);
    expect(Math.abs(countBy(after, 'a#1') - countBy(after, 'b#1'))).toBeLessThanOrEqual(2);
  });

  it('given a job only one node can run (its configuration), then that node runs it; a job no live node can run has none', () => {
    const assigned = assignJobs([node('a#1', PROJECTORS), node('b#1', [...PROJECTORS, 'kafka:events'])], new Map([['kafka:events', 'a#1']]));
    expect(assigned.get('kafka:events')).toBe('b#1');
    expect(assigned.has('engine:btc')).toBe(false);
  });

  it('given the same members read in another order, then the same assignment (every node computes it alike)', () => {
    const members = [node('c#1'), node('a#1'), node('b#1')];
    const holders = new Map([['projector-03', 'b#1'], ['engine:eth', 'c#1']]);
    const one = assignJobs(members, holders);
    const other = assignJobs([...members].reverse(), new Map([...holders].reverse()));
    expect([...other].sort()).toEqual([...one].sort());
    expect(one.get('projector-03')).toBe('b#1');
    expect(one.get('engine:eth')).toBe('c#1');
  });

  it('given a holder over its share, then it keeps only its share: the rest go to nodes with room', () => {
    const holders = new Map(ENGINES.map((job) => [job, 'a#1']));
    const assigned = assignJobs([node('a#1'), node('b#1'), node('c#1')], holders);
    expect(ENGINES.map((job) => assigned.get(job)).sort()).toEqual(['a#1', 'b#1', 'c#1']);
  });
});
