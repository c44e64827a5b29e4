/**
 * A request as its topic (`<prefix>.projections.agentic-memory-requests`) carries it: the seeds'
 * AgenticMemoryRequestStatus the API shows (status polling, the requester's own list), without the words people wrote
 * (`question`, `response`: personal, docs/privacy.md), so the topic holds no personal data.
 */
import { statusOf, type AgenticMemoryRequestStatus } from '../../src/modules/agentic-memory/domain/collection-wire';
import type { MemoryRequest } from '../../src/modules/agentic-memory/domain/collection';

export type PublishedRequestStatus = Omit<AgenticMemoryRequestStatus, 'question' | 'response'>;

/** The status the API shows, less the question and the response (members in the API's order). */
export function publishedRequestStatus(request: MemoryRequest): PublishedRequestStatus {
  const { question: _question, response: _response, ...status } = statusOf(request);
  return status;
}
