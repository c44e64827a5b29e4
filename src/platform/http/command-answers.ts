/**
 * How a module's routes answer a command: run it, then read its record back once the read models hold the command's
 * writes (the platform's read-your-writes, ProjectionRunner.readBack), or 202 with the record's id if they have not
 * caught up in time. One helper for every controller that answers so (commerce, transfers, billing).
 */
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { PLATFORM_CONFIG, type PlatformConfig } from '../config/platform-config';
import { ProjectionRunner } from '../projections/projection-runner';

@Injectable()
export class CommandAnswers {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly runner: ProjectionRunner,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async act(command: object, read: (id: string) => object): Promise<object> {
    const created: { id: string } = await this.commandBus.execute(command);
    return this.runner.readBack(() => this.queryBus.execute(read(created.id)), () => ({ id: created.id }), this.config.readYourWritesTimeoutMs);
  }
}
