/**
 * The AI-agent wallets' notification rules (registered with the notification inbox,
 * src/modules/notifications/domain/rule-port.ts): an agent payment waiting for approval, an intent denied by the
 * policy, an approval or accepted intent expired. Recipients: the binding's owner and the owners of its workspace at
 * the time (the shared WORKSPACE_FACT identity keeps), and for a denial the person who asked.
 */
import {
  fact, getFact, id32, notifier, plainDecimal, recipients, shortRef, streamId, untrusted, words, workspaceNamedBy, workspaceRecipients,
  type FactKey, type Facts, type InboxChange, type InWorkspace, type NotificationContent, type NotificationRules, type SourceEvent,
} from '../../notifications/domain/rule-port';
import type { AiWalletApproval, AiWalletBindingCore, AiWalletIntent } from './binding';

interface BindingFact extends InWorkspace {
  owner: string;
  label: string;
}

const HREF = {
  approvals: (binding_uuid: string) => `/api/v1/ai-wallets/bindings/${binding_uuid}/approvals?state=PENDING`,
  intent: (intent_uuid: string) => `/api/v1/ai-wallets/intents/${intent_uuid}`,
};
const STREAM = { binding: 'ai-wallet-binding-' };
const TYPES = ['AI_WALLET_APPROVAL_REQUESTED', 'AI_WALLET_INTENT_DENIED', 'AI_WALLET_APPROVAL_EXPIRED', 'AI_WALLET_INTENT_EXPIRED'] as const;
const notify = notifier('ai-wallets', TYPES);

/** The binding's fact, then (second round) the workspace it names: its owners now are recipients. */
function factsNeeded(e: SourceEvent, known: Facts): FactKey[] {
  const d = e.data as Record<string, unknown>;
  const binding = (id: unknown): FactKey[] => [{ scope: 'binding', key: String(id) }, ...workspaceNamedBy(known, 'binding', id)];
  switch (e.type) {
    case 'AiWalletApprovalRequested':
      return binding((d.approval as AiWalletApproval | undefined)?.binding_uuid);
    case 'AiWalletIntentDenied':
      return binding((d.intent as AiWalletIntent | undefined)?.binding_uuid);
    case 'AiWalletIntentExpired':
      return binding(d.binding_uuid);
    default:
      return [];
  }
}

// AI-agent wallets: approvals waiting, denials, expiries — for the binding's owner and the workspace's owner

function plan(e: SourceEvent, facts: Facts): InboxChange[] {
  if (!streamId(e, STREAM.binding)) return [];
  switch (e.type) {
    case 'AiWalletBindingCreated': {
      const b = e.data.binding as AiWalletBindingCore;
      if (!id32(b?.binding_uuid)) return [];
      return [fact('binding', b.binding_uuid, { owner: b.owner_profile_uuid, workspace: b.workspace_uuid, label: untrusted(b.agent_label, 60, 'an agent') } satisfies BindingFact)];
    }
    case 'AiWalletApprovalRequested': {
      const a = e.data.approval as AiWalletApproval;
      const binding = getFact(facts, 'binding', a?.binding_uuid) as BindingFact | undefined;
      if (!binding || !id32(a.approval_uuid)) return [];
      return recipients(binding.owner, ...workspaceRecipients(facts, binding)).map((p) =>
        notify(e, p, {
          type: 'AI_WALLET_APPROVAL_REQUESTED',
          title: 'An agent payment waits for your approval',
          message: `Agent "${binding.label}" asks to move ${plainDecimal(a.amount)} ${untrusted(a.asset_code, 16)} to ${shortRef(a.destination_reference)}. Approve or reject it before ${untrusted(a.expires_at, 40)}.`,
          href: HREF.approvals(a.binding_uuid),
          reference: a.approval_uuid,
        }),
      );
    }
    case 'AiWalletIntentDenied': {
      const i = e.data.intent as AiWalletIntent;
      const binding = getFact(facts, 'binding', i?.binding_uuid) as BindingFact | undefined;
      if (!binding || !id32(i.intent_uuid)) return [];
      return recipients(binding.owner, ...workspaceRecipients(facts, binding), i.requested_by_profile_uuid).map((p) =>
        notify(e, p, {
          type: 'AI_WALLET_INTENT_DENIED',
          title: 'Agent intent denied',
          message: `The policy denied agent "${binding.label}" a ${words(i.intent_type)} of ${plainDecimal(i.amount)} ${untrusted(i.asset_code, 16)} to ${shortRef(i.destination_reference)}: ${words(i.decision_code)} (${untrusted(i.decision_code, 40)}).`,
          href: HREF.intent(i.intent_uuid),
          reference: i.intent_uuid,
        }),
      );
    }
    case 'AiWalletIntentExpired': {
      const d = e.data as { binding_uuid: string; intent_uuid: string; approval_uuid: string | null; expired_at: string };
      const binding = getFact(facts, 'binding', d.binding_uuid) as BindingFact | undefined;
      if (!binding || !id32(d.intent_uuid)) return [];
      const approval = id32(d.approval_uuid);
      const content: NotificationContent<(typeof TYPES)[number]> = approval
        ? {
            type: 'AI_WALLET_APPROVAL_EXPIRED',
            title: 'Agent approval expired',
            message: `An approval request of agent "${binding.label}" expired without a decision; the intent will not execute and its budget reservation was released.`,
            href: HREF.intent(d.intent_uuid),
            reference: approval,
          }
        : {
            type: 'AI_WALLET_INTENT_EXPIRED',
            title: 'Agent intent expired',
            message: `An accepted intent of agent "${binding.label}" expired before it was settled; its budget reservation was released.`,
            href: HREF.intent(d.intent_uuid),
            reference: d.intent_uuid,
          };
      return recipients(binding.owner, ...workspaceRecipients(facts, binding)).map((p) => notify(e, p, content));
    }
    default:
      return [];
  }
}

export const aiWalletNotificationRules: NotificationRules = {
  source: 'ai-wallets',
  types: TYPES,
  handles: ['AiWalletBindingCreated', 'AiWalletApprovalRequested', 'AiWalletIntentDenied', 'AiWalletIntentExpired'],
  factScopes: ['binding'],
  factsNeeded,
  plan,
};
