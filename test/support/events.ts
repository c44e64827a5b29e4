import { randomBytes } from 'node:crypto';
import type { EventMetadata, NewEvent } from '../../src/platform/event-store/event-store.port';
import type { JsonObject } from '../../src/platform/commitments/json';

export const hex32 = (): string => randomBytes(16).toString('hex');

export function testMetadata(overrides: Partial<EventMetadata> = {}): EventMetadata {
  return {
    tenant_uuid: null,
    workspace_uuid: null,
    actor: { type: 'system', reference: 'test' },
    correlation_id: hex32(),
    causation_id: null,
    request_id: null,
    schema_version: 1,
    ...overrides,
  };
}

export function newEvent(type: string, data: JsonObject = {}, overrides: Partial<NewEvent> = {}): NewEvent {
  return { event_id: hex32(), type, data, metadata: testMetadata(), ...overrides };
}
