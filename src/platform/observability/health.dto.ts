/** What the health routes answer (response DTOs: the OpenAPI schemas of /health/live and /health/ready). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class LivenessReport {
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';
}

export class ReadinessCheckReport {
  @ApiProperty({ enum: ['up', 'down'] })
  status!: 'up' | 'down';

  @ApiPropertyOptional({ description: 'The store kind and head, the database kind, how many are starting, or "unreachable".' })
  detail?: string;
}

export class ProjectorReport {
  @ApiProperty()
  name!: string;

  @ApiProperty({ enum: ['stopped', 'starting', 'running', 'standby', 'failing'] })
  state!: string;

  @ApiProperty({ description: 'Global position the projector has applied (decimal string).', pattern: '^[0-9]+$' })
  checkpoint!: string;

  @ApiProperty()
  failing!: boolean;
}

export class ReadinessReport {
  @ApiProperty({ enum: ['ok', 'unavailable'] })
  status!: 'ok' | 'unavailable';

  @ApiProperty({
    description: 'event_store, read_models and projections always; matching_engines and kafka_topics where this node runs them.',
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/ReadinessCheckReport' },
  })
  checks!: Record<string, ReadinessCheckReport>;

  @ApiProperty({ type: [ProjectorReport] })
  projections!: ProjectorReport[];
}
