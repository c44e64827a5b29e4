/**
 * What the agentic-memory routes answer (response DTOs, named as the seeds name the records). Every answer is the
 * seeds' AgenticMemoryEnvelope: `success` (always true), `response` typed per operation, `meta` where there is some.
 */
import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { HEX32_ID } from '../../../platform/http/api-properties';


/** The seeds' AgenticMemoryRequestReceipt: acceptance is not an answer. */
@ApiSchema({ name: 'AgenticMemoryRequestReceipt' })
export class AgenticMemoryRequestReceiptResponse {
  @ApiProperty(HEX32_ID) request_uuid!: string;
  @ApiProperty(HEX32_ID) collection_uuid!: string;
  @ApiProperty({ enum: ['QUERY', 'CLARIFY', 'PROPOSE'] }) request_type!: string;
  @ApiProperty({ enum: ['OPEN'] }) state!: string;
}

/** The seeds' AgenticMemoryRequestStatus. */
@ApiSchema({ name: 'AgenticMemoryRequestStatus' })
export class AgenticMemoryRequestStatusResponse {
  @ApiProperty(HEX32_ID) request_uuid!: string;
  @ApiProperty(HEX32_ID) collection_uuid!: string;
  @ApiProperty({ enum: ['QUERY', 'CLARIFY', 'PROPOSE'] }) request_type!: string;
  @ApiProperty() question!: string;
  @ApiProperty({ enum: ['OPEN', 'ANSWERED', 'DISMISSED'] }) state!: string;
  @ApiProperty({ format: 'date-time' }) created!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null while open.' }) resolved!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The reviewed answer; null until resolved.' }) response!: string | null;
}

/** AgenticMemoryEnvelope of a request receipt. */
@ApiSchema({ name: 'AgenticMemoryRequestReceiptEnvelope' })
export class AgenticMemoryRequestReceiptEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryRequestReceiptResponse }) response!: AgenticMemoryRequestReceiptResponse;
}

/** AgenticMemoryEnvelope of a request's status. */
@ApiSchema({ name: 'AgenticMemoryRequestStatusEnvelope' })
export class AgenticMemoryRequestStatusEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryRequestStatusResponse }) response!: AgenticMemoryRequestStatusResponse;
}
