/** Notifications in the capability registry (docs/capabilities.md). */
import { declareApplication } from '../../platform/capabilities/capability';

declareApplication({
  name: 'notifications',
  group: 'Accounts',
  order: 8,
  owners: ['notifications'],
  description: "The caller's notification inbox, fed by the other modules' events.",
  purpose: 'Tell people what happened to their account, orders, wallets and payments.',
  audiences: ['every signed-in person'],
  businessCases: ['see fills, approvals waiting and security events', 'mark them read or archive them'],
  workflow: ['list unread notifications', 'read one', 'mark read or archive'],
  prerequisites: ['a signed-in account'],
  agentGuidance: ['Poll the inbox with a cursor instead of re-reading every notification.'],
  relatedApplications: ['identity', 'trading', 'ai-wallets', 'commerce'],
  capabilities: {
    inbox: { whenToUse: 'To list or read your notifications, mark them read (one or all) or archive one.', sideEffects: 'Marks notifications read or archived.' },
  },
});
