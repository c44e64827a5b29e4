/**
 * What every field of every event is, for privacy (docs/privacy.md). Each module declares, next to its event types,
 * a class for each field of each event's `data`:
 * - `public`: anyone may see it (market definitions, prices of the public tape);
 * - `internal`: the platform's own facts — ids, states, amounts, codes, timestamps, commitments;
 * - `personal`: identifies or describes a person — email, names, phone, contact targets, IP, user agent/device,
 *   free text a person wrote (reasons, questions, answers), memory payloads and private provenance;
 * - `secret`: password hashes, token hashes, TOTP and recovery material, keys, signing material.
 *
 * The declaration is checked twice: by the compiler (EventClasses needs every event type of the module's union and
 * every field of each, and refuses a field that is not there), and at run time (unclassifiedPaths: a test walks every
 * module and fails on an appended event whose type or field has no class), so a new module cannot forget.
 */
export const FIELD_CLASSES = ['public', 'internal', 'personal', 'secret'] as const;
export type FieldClass = (typeof FIELD_CLASSES)[number];

/** A class per member; an object member takes one class for the whole, or a class per member of its own. */
export type FieldClasses<T> = { [K in keyof T]-?: FieldClass | MemberClasses<NonNullable<T[K]>> };
type MemberClasses<V> = V extends readonly unknown[] ? never : V extends object ? FieldClasses<V> : never;

/** The data of the union member(s) whose `type` is T (a member may stand for several types). */
type DataOf<E, T> = E extends { type: infer U; data: infer D } ? (T extends U ? D : never) : never;

/** Every event type of a module's event union, with the classes of its data's fields. */
export type EventClasses<E extends { type: string; data: unknown }> = { [T in E['type']]: FieldClasses<DataOf<E, T>> };

/** A declaration as stored: member name to class, or to the classes of an object member's own members. */
export interface FieldClassMap {
  [field: string]: FieldClass | FieldClassMap;
}

/** An event as the subject rule sees it (before it is stored). */
export interface EventForSubject {
  type: string;
  stream: string;
  data: Record<string, unknown>;
  metadata: { actor: { type: string; reference: string } };
}

/**
 * Whose key seals an event's personal and secret fields (src/platform/privacy/sealing.ts): the id of the person (or,
 * for a binding's credentials, the binding) they belong to. By default the actor: the words a person writes are that
 * person's. Identity says the account whose stream it is; AI wallets say the binding for its credentials.
 */
export type SubjectRule = (e: EventForSubject) => string;
export const ACTOR_IS_SUBJECT: SubjectRule = (e) => e.metadata.actor.reference;

interface Declaration {
  module: string;
  fields: FieldClassMap;
  subject: SubjectRule;
  /** Whether any field (at any depth) is personal or secret: only those events are sealed and unsealed. */
  protectedFields: boolean;
}

const registry = new Map<string, Declaration>();

/**
 * Registers a module's event classes (called once per module, from its domain's privacy file, when the module is
 * loaded). An event type belongs to one module: a second module declaring it is a programming error.
 */
export function declareEventClasses<E extends { type: string; data: unknown }>(
  module: string,
  classes: EventClasses<E>,
  options: { subject?: SubjectRule } = {},
): EventClasses<E> {
  for (const [type, fields] of Object.entries(classes as Record<string, FieldClassMap>)) {
    const known = registry.get(type);
    if (known && known.module !== module) throw new Error(`event type ${type} is declared by ${known.module} and ${module}`);
    const protectedFields = pathsOfClass(fields, 'personal').length + pathsOfClass(fields, 'secret').length > 0;
    registry.set(type, { module, fields, subject: options.subject ?? ACTOR_IS_SUBJECT, protectedFields });
  }
  return classes;
}

export function eventFieldClasses(type: string): FieldClassMap | undefined {
  return registry.get(type)?.fields;
}

/** The declaration of an event type: its classes, its subject rule, whether it has fields to seal. */
export function eventDeclaration(type: string): Readonly<Declaration> | undefined {
  return registry.get(type);
}

/** Every declared event type, its module and field classes, sorted by module then type (docs/privacy.md). */
export function declaredEventClasses(): Array<{ type: string; module: string; fields: FieldClassMap }> {
  return [...registry].map(([type, d]) => ({ type, module: d.module, fields: d.fields })).sort((a, b) => a.module.localeCompare(b.module) || a.type.localeCompare(b.type));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The paths of `data` that have no class (`type` itself when the type is not declared): members the declaration does
 * not name, at any depth the declaration descends to. Empty when every field is classified.
 */
export function unclassifiedPaths(type: string, data: unknown): string[] {
  const fields = eventFieldClasses(type);
  if (!fields) return [type];
  const missing: string[] = [];
  const walk = (value: unknown, classes: FieldClassMap, path: string): void => {
    if (!isObject(value)) return;
    for (const [key, member] of Object.entries(value)) {
      const c = classes[key];
      if (c === undefined) missing.push(`${type}.${path}${key}`);
      else if (typeof c !== 'string') walk(member, c, `${path}${key}.`);
    }
  };
  walk(data, fields, '');
  return missing;
}

/** The paths a class covers in a declaration (for the docs): `device` or `item.payload`. */
export function pathsOfClass(fields: FieldClassMap, wanted: FieldClass, prefix = ''): string[] {
  return Object.entries(fields).flatMap(([key, c]) => (typeof c === 'string' ? (c === wanted ? [`${prefix}${key}`] : []) : pathsOfClass(c, wanted, `${prefix}${key}.`)));
}
