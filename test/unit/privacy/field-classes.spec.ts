/**
 * The privacy classification (src/platform/privacy/field-classes.ts) at run time: the registry, and
 * unclassifiedPaths naming what an event carries without a class. What the compiler refuses is checked by
 * field-classes.type-check.ts.
 */
import { declareEventClasses, eventFieldClasses, pathsOfClass, unclassifiedPaths } from '../../../src/platform/privacy/field-classes';

type Sample =
  | { type: 'SampleOpened'; data: { sample_uuid: string; email: string; device: { name: string; platform: string } | null; note?: string } }
  | { type: 'SampleReviewed' | 'SampleRejected'; data: { sample_uuid: string; reason: string | null } };

describe('declareEventClasses', () => {
  const classes = declareEventClasses<Sample>('sample', {
    SampleOpened: { sample_uuid: 'internal', email: 'personal', device: { name: 'personal', platform: 'internal' }, note: 'personal' },
    SampleReviewed: { sample_uuid: 'internal', reason: 'personal' },
    SampleRejected: { sample_uuid: 'internal', reason: 'personal' },
  });

  it('registers every type of the union, with nested classes', () => {
    expect(eventFieldClasses('SampleOpened')).toBe(classes.SampleOpened);
    expect(eventFieldClasses('SampleRejected')).toEqual({ sample_uuid: 'internal', reason: 'personal' });
    expect(pathsOfClass(classes.SampleOpened as never, 'personal')).toEqual(['email', 'device.name', 'note']);
  });

  it('names the fields an event carries without a class, at any depth the declaration descends to', () => {
    expect(unclassifiedPaths('SampleOpened', { sample_uuid: 'a', email: 'e', device: { name: 'n', platform: 'p', ip: '10.0.0.1' }, extra: 1 })).toEqual([
      'SampleOpened.device.ip',
      'SampleOpened.extra',
    ]);
    expect(unclassifiedPaths('SampleOpened', { sample_uuid: 'a', email: 'e', device: null })).toEqual([]);
    expect(unclassifiedPaths('NeverDeclared', { a: 1 })).toEqual(['NeverDeclared']);
  });

  it('refuses a second module declaring a type another one owns', () => {
    expect(() => declareEventClasses<Extract<Sample, { type: 'SampleOpened' }>>('other', { SampleOpened: classes.SampleOpened })).toThrow('declared by sample and other');
  });
});
