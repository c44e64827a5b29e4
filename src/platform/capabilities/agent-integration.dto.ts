/** The seeds' AgentIntegrationProfile (all strings, all required): the platform's conventions (AGENT_INTEGRATION_PROFILE), answered by GET /api/v1/auth/profiles and inside the capability registry. */
import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'AgentIntegrationProfile' })
export class AgentIntegrationProfileResponse {
  @ApiProperty() errorEnvelope!: string;
  @ApiProperty() pagination!: string;
  @ApiProperty() idempotency!: string;
  @ApiProperty() requestSigning!: string;
  @ApiProperty() retryPolicy!: string;
  @ApiProperty() decimalPolicy!: string;
}
