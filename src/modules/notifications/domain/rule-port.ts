/**
 * The port through which a module tells the notification inbox which of its events become notifications, for whom.
 *
 * Each module that notifies declares, in its own folder (`src/modules/<module>/domain/notification-rules.ts`), one
 * `NotificationRules` for its own events: the event types it reads, the notification types it writes, the facts it
 * keeps, and two pure functions. `factsNeeded(event)` names the few facts an event needs from earlier events (the
 * owner of a binding, an order's side and size, the devices an account has signed in from, …); the projector loads
 * them from its own table, and `plan(event, facts)` answers the changes: notifications to write, facts to remember
 * or forget. Facts come only from events the projector folded itself, never from another read model (those advance
 * on their own), and every id and timestamp comes from the event, so a rebuild from zero writes the same rows.
 *
 * The notifications module defines this port and composes what is registered (`composeNotificationRules`); it
 * imports no other module. src/notification-rules.ts lists the registered rules.
 *
 * What is never copied: token hashes, one-time codes, TOTP secrets, recovery codes, password hashes, a new contact
 * address itself (only the masked hint identity made), question and answer texts. Text a client chose passes
 * `untrusted()` (bounded, scrubbed of anything secret-shaped).
 */
import { NOTIFICATION_SOURCE_PATTERN, NOTIFICATION_TYPE_PATTERN, notificationId, type NotificationDraft } from './notification';

export { plainDecimal, shortRef, untrusted, words } from './text';

/** The parts of a recorded event the rules read (position zero-padded to 20 digits). */
export interface SourceEvent {
  event_id: string;
  type: string;
  stream: string;
  position: string;
  occurred_at: string;
  data: Record<string, unknown>;
}

/** The `data` of the event of type `K` in a module's event union `U`: `DataOf<AccountEvent, 'LoginFailed'>`. */
export type DataOf<U, K> = Extract<U, { type: K }> extends { data: infer D } ? D : never;

/** A fact the projector remembered: its scope (one module's kind of fact) and key (an id). */
export interface FactKey {
  scope: string;
  key: string;
}
export type FactValue = Record<string, unknown>;
/** Loaded facts by `factId`; a missing key is a fact never recorded (or forgotten). */
export type Facts = ReadonlyMap<string, FactValue>;
export const factId = (k: FactKey): string => `${k.scope}/${k.key}`;

export type InboxChange =
  | { kind: 'notify'; draft: NotificationDraft }
  | { kind: 'fact'; scope: string; key: string; value: FactValue | null }
  | { kind: 'read'; profile_uuid: string; notification_uuid: string; at: string }
  | { kind: 'read-all'; profile_uuid: string; at: string }
  | { kind: 'archive'; profile_uuid: string; notification_uuid: string; at: string };

/** What a notification says, as a rule decides it. */
export interface NotificationContent<T extends string = string> {
  type: T;
  title: string;
  message: string;
  /** A relative URL on this API where the account acts on it (PLATFORM.md section 6), or null. */
  href: string | null;
  reference: string | null;
}

/** One module's notification rules, registered with the inbox. */
export interface NotificationRules {
  /** The module whose events these are: the `source` of every notification they write. */
  source: string;
  /** The notification types these rules write; a type belongs to one module. */
  types: readonly string[];
  /** The event types the rules read; the projector subscribes to the union. */
  handles: readonly string[];
  /** The fact scopes these rules write; a scope belongs to one module (others may read it, see WORKSPACE_FACT). */
  factScopes: readonly string[];
  /** Scopes keyed by a profile whose facts are about that person: forgotten when the account is erased. */
  personalFactScopes?: readonly string[];
  /** The facts `plan` reads; called again with what was loaded, for facts named by facts, until nothing is new. */
  factsNeeded?(e: SourceEvent, known: Facts): FactKey[];
  plan(e: SourceEvent, facts: Facts): InboxChange[];
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers every module's rules use

const HEX32 = /^[0-9a-f]{32}$/;
/** The value when it is a 32-hex id, else null: rules never trust an event's shape blindly. */
export const id32 = (v: unknown): string | null => (typeof v === 'string' && HEX32.test(v) ? v : null);

/** The id after `prefix` when the event's stream starts with it, else null (an event of that type elsewhere). */
export const streamId = (e: SourceEvent, prefix: string): string | null => (e.stream.startsWith(prefix) ? e.stream.slice(prefix.length) : null);

export const fact = (scope: string, key: string, value: FactValue | null): InboxChange => ({ kind: 'fact', scope, key, value });
export const getFact = (facts: Facts, scope: string, key: unknown): FactValue | undefined => facts.get(factId({ scope, key: String(key) }));

/** Distinct valid profile ids, in order. */
export function recipients(...profiles: Array<string | null | undefined>): string[] {
  return [...new Set(profiles.filter((p): p is string => typeof p === 'string' && HEX32.test(p)))];
}

export type Notify<T extends string> = (e: SourceEvent, profile_uuid: string, content: NotificationContent<T>, idParts?: string[]) => InboxChange;

/**
 * The `notify` of one module: a notification for one recipient of the event, its id derived from the event id and
 * the recipient (or from `idParts` when several events refine one notification), its source the module. `T`: the
 * module's declared types, so a rule cannot write an undeclared one.
 */
export function notifier<T extends string>(source: string, _types: readonly T[]): Notify<T> {
  return (e, profile_uuid, content, idParts) => ({
    kind: 'notify',
    draft: {
      notification_uuid: notificationId(...(idParts ?? [e.event_id, profile_uuid])),
      profile_uuid,
      type: content.type,
      source,
      title: content.title,
      message: content.message,
      href: content.href,
      reference: content.reference,
      at: e.occurred_at,
      event_id: e.event_id,
      position: e.position,
    },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The one fact the modules share: who owns a workspace

/**
 * A workspace's owners now (the recipients of its agents' and collections' news) and its name. Identity's rules keep
 * it from identity's events (WorkspaceCreated and the membership changes); other modules' rules read it, so that the
 * owners at the time of each notification are told, not those when a binding or collection was made.
 */
export const WORKSPACE_FACT = 'workspace';
export interface WorkspaceFact {
  owners: string[];
  name: string;
}

/** A workspace's owners now, or null when the workspace is unknown; older facts carry a single `owner`. */
export function workspaceOwners(facts: Facts, workspace_uuid: unknown): string[] | null {
  const f = getFact(facts, WORKSPACE_FACT, workspace_uuid);
  if (!f) return null;
  if (Array.isArray(f.owners)) return f.owners.filter((p): p is string => typeof p === 'string');
  return typeof f.owner === 'string' ? [f.owner] : [];
}

/** A module's fact that names its workspace (a binding, a collection). */
export interface InWorkspace {
  workspace?: string;
  /** Facts recorded before workspaces had several members: the owner when the record was made. */
  workspace_owner?: string | null;
}

/** The workspace fact a loaded fact names (for `factsNeeded`'s second round). */
export function workspaceNamedBy(known: Facts, scope: string, key: unknown): FactKey[] {
  const workspace = id32(getFact(known, scope, String(key))?.workspace);
  return workspace ? [{ scope: WORKSPACE_FACT, key: workspace }] : [];
}

/** The owners of the record's workspace now, or the owner recorded with an older fact. */
export const workspaceRecipients = (facts: Facts, f: InWorkspace): string[] =>
  (f.workspace ? workspaceOwners(facts, f.workspace) : null) ?? (f.workspace_owner ? [f.workspace_owner] : []);

// ---------------------------------------------------------------------------------------------------------------
// Composition

/** Every registered module's rules as one: what the notification-inbox projector runs. */
export interface ComposedNotificationRules {
  /** Every event type some rules read. */
  handles: string[];
  /** Notification type → source (the module that writes it). */
  sourceOf: ReadonlyMap<string, string>;
  /** Scopes forgotten for an erased account. */
  personalFactScopes: string[];
  factsNeeded(e: SourceEvent, known?: Facts): FactKey[];
  plan(e: SourceEvent, facts: Facts): InboxChange[];
}

/**
 * The registered rules composed. Refuses (throws, at start-up) two modules claiming one notification type or fact
 * scope; each plan is held to what its module declared, so one module's rules cannot write another's facts or types.
 */
export function composeNotificationRules(registered: readonly NotificationRules[]): ComposedNotificationRules {
  const byEvent = new Map<string, NotificationRules[]>();
  const sourceOf = new Map<string, string>();
  const scopeOwner = new Map<string, string>();
  for (const rules of registered) {
    if (!NOTIFICATION_SOURCE_PATTERN.test(rules.source)) throw new Error(`notification source ${rules.source} is not a module name (${NOTIFICATION_SOURCE_PATTERN})`);
    for (const type of rules.types) {
      if (!NOTIFICATION_TYPE_PATTERN.test(type)) throw new Error(`notification type ${type} of ${rules.source} does not match ${NOTIFICATION_TYPE_PATTERN}`);
      const other = sourceOf.get(type);
      if (other !== undefined) throw new Error(`notification type ${type} is declared by both ${other} and ${rules.source}`);
      sourceOf.set(type, rules.source);
    }
    for (const scope of rules.factScopes) {
      const other = scopeOwner.get(scope);
      if (other !== undefined) throw new Error(`fact scope ${scope} is declared by both ${other} and ${rules.source}`);
      scopeOwner.set(scope, rules.source);
    }
    for (const scope of rules.personalFactScopes ?? []) {
      if (!rules.factScopes.includes(scope)) throw new Error(`${rules.source}: personal fact scope ${scope} is not one of its fact scopes`);
    }
    for (const type of rules.handles) byEvent.set(type, [...(byEvent.get(type) ?? []), rules]);
  }
  const held = (rules: NotificationRules, change: InboxChange): InboxChange => {
    if (change.kind === 'notify' && (change.draft.source !== rules.source || sourceOf.get(change.draft.type) !== rules.source)) {
      throw new Error(`${rules.source} wrote a notification of type ${change.draft.type} (source ${change.draft.source}) it did not declare`);
    }
    if (change.kind === 'fact' && scopeOwner.get(change.scope) !== rules.source) {
      throw new Error(`${rules.source} wrote a fact of scope ${change.scope}, which is not its own`);
    }
    return change;
  };
  return {
    handles: [...byEvent.keys()],
    sourceOf,
    personalFactScopes: registered.flatMap((r) => r.personalFactScopes ?? []),
    factsNeeded: (e, known = new Map()) => (byEvent.get(e.type) ?? []).flatMap((r) => r.factsNeeded?.(e, known) ?? []),
    plan: (e, facts) => (byEvent.get(e.type) ?? []).flatMap((r) => r.plan(e, facts).map((c) => held(r, c))),
  };
}
