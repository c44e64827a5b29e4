/**
 * Every read model of the platform: its entities, migrations and projector. Each lives in its own folder,
 * `projections/<read-model>/`; the runner in src/platform/projections runs them all.
 */
import type { ReadModelDefinition } from '../src/platform/read-model/read-model.definition';

export const READ_MODELS: ReadModelDefinition[] = [];
