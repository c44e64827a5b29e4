/**
 * Sealing (src/platform/privacy/sealing.ts, subject-keys.ts, sealing-event-store.ts): personal and secret fields are
 * stored encrypted under their subject's key, opened on read, bound to their field; the chain commits to their digest,
 * so the published form (committedData) verifies without the values and erasing a key changes no commitment.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { canonicalJson, committedData, committedDataJcs, eventCommitment, verifyStreamChain } from '../../../src/platform/commitments/commitment';
import type { JsonObject } from '../../../src/platform/commitments/json';
import { SqliteEventStore } from '../../../src/platform/event-store/sqlite/sqlite.event-store';
import { declareEventClasses } from '../../../src/platform/privacy/field-classes';
import { ERASED_VALUES, isSealed, sealEventData, sealValues, unsealEventData, unsealValues, type SealingKeys } from '../../../src/platform/privacy/sealing';
import { SealingEventStore } from '../../../src/platform/privacy/sealing-event-store';
import { subjectKeysInFile } from '../../../src/platform/privacy/sqlite-subject-keys';
import type { SubjectKey, SubjectKeyStore } from '../../../src/platform/privacy/subject-keys';
import { testMetadata, hex32 } from '../../support/events';

type Sealable =
  | { type: 'SealableRegistered'; data: { profile_uuid: string; email: string; password_hash: string; device: { name: string; platform: string } | null; tags: string[]; age: number | null } }
  | { type: 'SealableNoted'; data: { note: { text: string; at: string } } };

declareEventClasses<Sealable>(
  'sealable',
  {
    SealableRegistered: { profile_uuid: 'internal', email: 'personal', password_hash: 'secret', device: 'personal', tags: 'personal', age: 'personal' },
    SealableNoted: { note: { text: 'personal', at: 'internal' } },
  },
  { subject: (e) => String(e.data.profile_uuid ?? e.metadata.actor.reference) },
);

const dir = (): string => mkdtempSync(join(tmpdir(), 'sealing-'));
const keysIn = (d: string, master = randomBytes(32)): SubjectKeyStore => subjectKeysInFile(join(d, 'subject-keys.sqlite'), master);

/** The pure functions' view of keys, in memory (the stores behind it: test/contract/subject-key-store.spec.ts). */
class MemoryKeys implements SealingKeys {
  private readonly bySubject = new Map<string, SubjectKey>();
  private readonly byKid = new Map<string, Buffer>();
  keyFor(subject: string): SubjectKey {
    let key = this.bySubject.get(subject);
    if (!key) {
      key = { kid: randomBytes(16).toString('hex'), key: randomBytes(32) };
      this.bySubject.set(subject, key);
      this.byKid.set(key.kid, key.key);
    }
    return key;
  }
  keyById(kid: string): Buffer | null {
    return this.byKid.get(kid) ?? null;
  }
  erase(subject: string): void {
    const key = this.bySubject.get(subject);
    if (key) this.byKid.delete(key.kid);
    this.bySubject.delete(subject);
  }
}
const registered = (profile: string): JsonObject => ({ profile_uuid: profile, email: 'ada@example.com', password_hash: 'scrypt$abc', device: { name: 'Firefox', platform: 'Linux' }, tags: ['vip'], age: 36 });

describe('sealValues / unsealValues', () => {
  const keys = new MemoryKeys();

  it('round-trips any JSON values together, bound to the event type and the fields: another type, another field set or a changed byte does not open', () => {
    const key = keys.keyFor('p1');
    const values = { email: 'ada@example.com', age: 42, vip: true, tags: ['a', 'b'], device: { name: 'Firefox' } };
    const sealed = sealValues(values, key, 'T');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed.t).toEqual({ email: 's', age: 'n', vip: 'b', tags: 'a', device: 'o' });
    expect(JSON.stringify(sealed)).not.toContain('ada@example.com');
    expect(JSON.stringify(sealed)).not.toContain('Firefox');
    expect(unsealValues(sealed, key.key, 'T')).toEqual(values);
    expect(() => unsealValues(sealed, key.key, 'U')).toThrow();
    expect(() => unsealValues({ ...sealed, t: { ...sealed.t, extra: 's' } }, key.key, 'T')).toThrow();
    const flipped = { ...sealed, ct: `${sealed.ct[0] === 'A' ? 'B' : 'A'}${sealed.ct.slice(1)}` };
    expect(() => unsealValues(flipped, key.key, 'T')).toThrow();
  });

  it('reads erased values as the placeholders of their types', () => {
    const sealed = sealValues({ s: 'x', o: { a: 1 }, a: [1], n: 7, b: true }, keys.keyFor('p2'), 'T');
    expect(unsealValues(sealed, null, 'T')).toEqual({ s: ERASED_VALUES.s, o: {}, a: [], n: 0, b: false });
  });
});

describe('sealEventData / unsealEventData', () => {
  const keys = new MemoryKeys();
  const at = (data: JsonObject, type = 'SealableRegistered') => ({ type, stream: 'sealable-1', data, metadata: testMetadata() });

  it('seals exactly the personal and secret fields (nulls stay null), under the subject the rule names', () => {
    const profile = hex32();
    const sealed = sealEventData(at({ ...registered(profile), device: null, age: null }), keys);
    expect(sealed.profile_uuid).toBe(profile);
    expect(sealed.device).toBeNull();
    expect(sealed.age).toBeNull();
    for (const f of ['email', 'password_hash', 'tags']) expect(sealed[f]).toEqual({ $sealed_field: f });
    expect(sealed.$sealed_values).toMatchObject({ $sealed: 'aes-256-gcm-v2', kid: keys.keyFor(profile).kid, t: { email: 's', password_hash: 's', tags: 'a' } });
    expect(JSON.stringify(sealed)).not.toMatch(/ada@example|scrypt|vip/);
    expect(unsealEventData('SealableRegistered', sealed, keys)).toEqual({ ...registered(profile), device: null, age: null });
  });

  it('descends into members classified one by one, and leaves data of types with nothing to seal as it is', () => {
    const noted = sealEventData({ type: 'SealableNoted', stream: 's', data: { note: { text: 'call me at +44 20 7946 0000', at: '2026-11-25' } }, metadata: testMetadata({ actor: { type: 'profile', reference: 'p9' } }) }, keys);
    expect((noted.note as JsonObject).at).toBe('2026-11-25');
    expect((noted.note as JsonObject).text).toEqual({ $sealed_field: 'note.text' });
    expect(isSealed(noted.$sealed_values)).toBe(true);
    expect(unsealEventData('SealableNoted', noted, keys)).toEqual({ note: { text: 'call me at +44 20 7946 0000', at: '2026-11-25' } });
    // A reference a person wrote into their own text elsewhere is not opened there.
    const crafted = sealEventData({ type: 'SealableNoted', stream: 's', data: { note: { text: 'secret words', at: { $sealed_field: 'note.text' } as never } }, metadata: testMetadata({ actor: { type: 'profile', reference: 'p9' } }) }, keys);
    expect(unsealEventData('SealableNoted', crafted, keys)).toEqual({ note: { text: 'secret words', at: { $sealed_field: 'note.text' } } });
    const plain = { anything: 'goes' };
    expect(sealEventData({ type: 'NotDeclaredHere', stream: 's', data: plain, metadata: testMetadata() }, keys)).toBe(plain);
  });

  it('computes the committed text on the append path exactly as the general rule does, whatever a person wrote', () => {
    for (let i = 0; i < 50; i++) {
      const data = sealEventData(at({ ...registered(hex32()), email: `a${'"\\{}'.repeat(i % 3)}${i}@example.com`, tags: i % 2 ? [] : ['x', `{${i}}`] }), keys);
      expect(committedDataJcs(data, canonicalJson(data))).toBe(canonicalJson(committedData(data)));
    }
    // Several sealed values, nested ones, a user's look-alike text: the general path, the same answer.
    const odd = { a: { $sealed: 'x', ct: 'y' }, b: { c: { $sealed: 'z' } }, note: '"$sealed": {' };
    expect(committedDataJcs(odd, canonicalJson(odd))).toBe(canonicalJson(committedData(odd)));
    // A person's text that looks like the end of a sealed value, in a field next to a real one: still exact.
    const tricky = sealEventData(at({ ...registered(hex32()), email: 'x"}},"$sealed":"y","t":{"a":"b"}}' }), keys);
    const withContent = { ...tricky, zz: { note: '}}"t":{' } };
    expect(committedDataJcs(withContent, canonicalJson(withContent))).toBe(canonicalJson(committedData(withContent)));
    const plain = { a: 1, b: 'no seal here' };
    expect(committedDataJcs(plain, canonicalJson(plain))).toBe(canonicalJson(plain));
  });

  it('is committed by digest: the published form recomputes the same commitment, before and after erasure', () => {
    const profile = hex32();
    const sealed = sealEventData(at(registered(profile)), keys);
    const fields = { stream: 'sealable-1', revision: 0n, event_id: hex32(), type: 'SealableRegistered', occurred_at: '2026-11-25T00:00:00.000Z', metadata: testMetadata(), previous_event_commitment: null };
    const stored = eventCommitment({ ...fields, data: sealed });
    const published = committedData(sealed);
    expect(canonicalJson(published)).not.toMatch(/\$sealed"|"ct"/);
    expect(published.email).toEqual({ $sealed_field: 'email' });
    expect(published.$sealed_values).toEqual({ $sealed_digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(eventCommitment({ ...fields, data: published })).toBe(stored);
    keys.erase(profile);
    expect(unsealEventData('SealableRegistered', sealed, keys)).toMatchObject({ email: '[erased]', password_hash: '[erased]', device: {}, tags: [], age: 0 });
    expect(eventCommitment({ ...fields, data: sealed })).toBe(stored);
  });
});

describe('SealingEventStore over SQLite', () => {
  it('stores sealed values and commits to them, reads them open, and the stored chain verifies before and after erasure', async () => {
    const d = dir();
    const keys = keysIn(d);
    const raw = new SqliteEventStore({ filename: join(d, 'events.sqlite') });
    const store = new SealingEventStore(raw, keys);
    const profile = hex32();
    const stream = `sealable-${profile}`;
    await store.append(stream, [{ event_id: hex32(), type: 'SealableRegistered', data: registered(profile), metadata: testMetadata() }], 'no_stream');
    await store.append(stream, [{ event_id: hex32(), type: 'SealableNoted', data: { note: { text: 'prefers email', at: 'x' } }, metadata: testMetadata({ actor: { type: 'profile', reference: profile } }) }], 0n);
    const stored = await raw.readStream(stream);
    expect(JSON.stringify(stored.map((e) => e.data))).not.toMatch(/ada@example|scrypt|prefers email/);
    expect(verifyStreamChain(stored)).toBeNull();
    expect((await store.readStream(stream))[0].data).toEqual(registered(profile));
    const live: string[] = [];
    const sub = store.subscribeToAll();
    for await (const batch of sub.batches(10)) {
      live.push(...batch.map((e) => JSON.stringify(e.data)));
      if (live.length >= 2) break;
    }
    await sub.close();
    expect(live.join()).toContain('prefers email');
    await keys.erase(profile);
    expect((await store.readStream(stream))[1].data).toEqual({ note: { text: '[erased]', at: 'x' } });
    expect(verifyStreamChain(await raw.readStream(stream))).toBeNull();
    await store.close();
    await keys.close();
  });
});
