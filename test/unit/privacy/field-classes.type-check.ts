/**
 * Compile-time checks of declareEventClasses (src/platform/privacy/field-classes.ts): each @ts-expect-error line is a
 * declaration the compiler must refuse. `npm test` type-checks the tree first (tsc --noEmit), and an expected error
 * that does not occur is itself an error, so a weaker type fails the run. Never executed.
 */
import { declareEventClasses } from '../../../src/platform/privacy/field-classes';

type Sample =
  | { type: 'SampleOpened'; data: { sample_uuid: string; email: string; device: { name: string; platform: string } | null; note?: string } }
  | { type: 'SampleReviewed' | 'SampleRejected'; data: { sample_uuid: string; reason: string | null } };

export function refusedDeclarations(): void {
  const opened = { sample_uuid: 'internal', email: 'personal', device: { name: 'personal', platform: 'internal' }, note: 'personal' } as const;
  const reviewed = { sample_uuid: 'internal', reason: 'personal' } as const;
  // Accepted: every type, every field; an object member as a whole or member by member.
  declareEventClasses<Sample>('sample', { SampleOpened: opened, SampleReviewed: reviewed, SampleRejected: reviewed });
  declareEventClasses<Sample>('sample', { SampleOpened: { ...opened, device: 'personal' }, SampleReviewed: reviewed, SampleRejected: reviewed });
  // @ts-expect-error SampleRejected (a type of the union) is missing.
  declareEventClasses<Sample>('sample', { SampleOpened: opened, SampleReviewed: reviewed });
  // @ts-expect-error `note` (an optional field) is missing.
  declareEventClasses<Sample>('sample', { SampleOpened: { sample_uuid: 'internal', email: 'personal', device: 'personal' }, SampleReviewed: reviewed, SampleRejected: reviewed });
  // @ts-expect-error `nickname` is not a field of SampleOpened.
  declareEventClasses<Sample>('sample', { SampleOpened: { ...opened, nickname: 'personal' }, SampleReviewed: reviewed, SampleRejected: reviewed });
  // @ts-expect-error device.platform is missing from a member-by-member declaration.
  declareEventClasses<Sample>('sample', { SampleOpened: { ...opened, device: { name: 'personal' } }, SampleReviewed: reviewed, SampleRejected: reviewed });
  // @ts-expect-error `confidential` is not a class.
  declareEventClasses<Sample>('sample', { SampleOpened: opened, SampleReviewed: { sample_uuid: 'internal', reason: 'confidential' }, SampleRejected: reviewed });
}
