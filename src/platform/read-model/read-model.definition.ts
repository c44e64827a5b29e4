import type { MixedList } from 'typeorm';
import type { Projector } from '../projections/projector';

/** One read model: its TypeORM entities, its migrations and the projector that fills it. */
export interface ReadModelDefinition {
  name: string;
  entities: MixedList<Function>;
  migrations: MixedList<Function>;
  projector: new (...args: never[]) => Projector;
}
