/** Node identity and incarnations (issue 19, item 6): pure parts and the node.id file. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isEarlierIncarnation, leaseOwner, loadOrCreateNodeId, nextIncarnation, parseLeaseOwner } from '../../src/platform/projections/node-identity';
import { loadPlatformConfig } from '../../src/platform/config/platform-config';

const me = { nodeId: 'api-1', incarnation: 1_700_000_000_500n, owner: leaseOwner('api-1', 1_700_000_000_500n) };

describe('lease owners', () => {
  it('name the node and a fixed-width incarnation, and read back', () => {
    expect(leaseOwner('api-1', 42n)).toBe('api-1#0000000000000042');
    expect(parseLeaseOwner('api-1#0000000000000042')).toEqual({ nodeId: 'api-1', incarnation: 42n });
    expect(parseLeaseOwner('12345-abcdef')).toBeNull(); // an owner written by an earlier version
    expect(parseLeaseOwner(null)).toBeNull();
  });

  it('an earlier incarnation of the same node is displaced; a later one, another node or another shape is not', () => {
    expect(isEarlierIncarnation(leaseOwner('api-1', 1n), me)).toBe(true);
    expect(isEarlierIncarnation(me.owner, me)).toBe(false);
    expect(isEarlierIncarnation(leaseOwner('api-1', me.incarnation + 1n), me)).toBe(false);
    expect(isEarlierIncarnation(leaseOwner('api-2', 1n), me)).toBe(false);
    expect(isEarlierIncarnation(leaseOwner('api-10', 1n), me)).toBe(false);
    expect(isEarlierIncarnation('api-1-1234', me)).toBe(false);
    expect(isEarlierIncarnation(null, me)).toBe(false);
  });

  it('a new incarnation is the clock, or past every incarnation of this node still named (a clock set back)', () => {
    expect(nextIncarnation('api-1', [null, leaseOwner('api-2', 9_000n)], 5_000)).toBe(5_000n);
    expect(nextIncarnation('api-1', [leaseOwner('api-1', 9_000n), leaseOwner('api-1', 7_000n)], 5_000)).toBe(9_001n);
  });
});

describe('node id', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'node-id-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is NODE_ID when set, else made once in DATA_DIR/node.id (0600) and the same on every start', () => {
    expect(loadOrCreateNodeId(dir, 'pod-7')).toBe('pod-7');
    const first = loadOrCreateNodeId(dir);
    expect(first).toMatch(/^node-[0-9a-f]{12}$/);
    expect(loadOrCreateNodeId(dir)).toBe(first);
    expect(readFileSync(join(dir, 'node.id'), 'utf8').trim()).toBe(first);
    expect(statSync(join(dir, 'node.id')).mode & 0o777).toBe(0o600);
  });

  it('refuses a node.id file that holds no node id, and a NODE_ID that could not be one', () => {
    writeFileSync(join(dir, 'node.id'), 'not a # node id\n');
    expect(() => loadOrCreateNodeId(dir)).toThrow(/does not hold a node id/);
    expect(() => loadPlatformConfig({ NODE_ID: 'a#1' })).toThrow(/NODE_ID/);
  });
});
