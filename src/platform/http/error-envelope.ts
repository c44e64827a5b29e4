/**
 * The one error envelope (PLATFORM.md section 4) and the mapping of every error the process can meet — ours,
 * Nest's, Fastify's, the JSON parser's — onto it. Unknown errors become INTERNAL with no stack, SQL or secret.
 */
import { HttpException } from '@nestjs/common';
import { PlatformError, STATUS_OF, type ErrorCode, type ErrorDetail } from '../errors';

export interface ErrorEnvelope {
  success: false;
  error: {
    code: ErrorCode;
    message: string;
    request_id: string;
    retryable: boolean;
    details: ErrorDetail[];
    current_version?: number | string | null;
  };
}

export interface MappedError {
  status: number;
  body: ErrorEnvelope;
  headers: Record<string, string>;
  /** True when the error is the server's fault and must be logged with its stack. */
  internal: boolean;
}

const FASTIFY_CODES: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'VALIDATION_FAILED', message: 'Content-Length does not match the body.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'VALIDATION_FAILED', message: 'The request body is empty; send a JSON object.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'VALIDATION_FAILED', message: 'The request body is not valid JSON.' },
  FST_ERR_CTP_INVALID_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type is invalid.' },
  FST_ERR_CTP_INVALID_PARSE_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type is invalid.' },
  FST_ERR_BAD_URL: { code: 'VALIDATION_FAILED', message: 'The URL is malformed.' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'VALIDATION_FAILED', message: 'The request is malformed.' },
};

const HTTP_STATUS_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHENTICATED',
  402: 'CREDITS_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'NOT_FOUND',
  406: 'VALIDATION_FAILED',
  409: 'STATE_CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'RULE_VIOLATION',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

export function envelope(code: ErrorCode, message: string, requestId: string, extra: Partial<ErrorEnvelope['error']> = {}): ErrorEnvelope {
  return {
    success: false,
    error: {
      code,
      message,
      request_id: requestId,
      retryable: extra.retryable ?? (code === 'RATE_LIMITED' || code === 'SERVICE_UNAVAILABLE'),
      details: extra.details ?? [],
      ...(extra.current_version !== undefined ? { current_version: extra.current_version } : {}),
    },
  };
}

/** Versions are int64: a number while it is exact, a decimal string beyond 2^53. */
function versionForWire(v: bigint | number | null | undefined): number | string | null | undefined {
  if (typeof v !== 'bigint') return v;
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

export function mapError(error: unknown, requestId: string): MappedError {
  if (error instanceof PlatformError) {
    const headers: Record<string, string> = {};
    if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
    const extra: Partial<ErrorEnvelope['error']> = { details: error.details, retryable: error.retryable };
    if (error.code === 'VERSION_CONFLICT') extra.current_version = versionForWire(error.currentVersion) ?? null;
    return { status: error.status, body: envelope(error.code, error.message, requestId, extra), headers, internal: error.code === 'INTERNAL' };
  }

  const fastifyCode = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  if (fastifyCode && FASTIFY_CODES[fastifyCode]) {
    const { code, message } = FASTIFY_CODES[fastifyCode];
    return { status: STATUS_OF[code], body: envelope(code, message, requestId), headers: {}, internal: false };
  }

  if (error instanceof HttpException) {
    const status = error.getStatus();
    const code = HTTP_STATUS_CODES[status] ?? (status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED');
    const message =
      code === 'NOT_FOUND' ? 'No such route or resource.' : code === 'INTERNAL' ? 'Internal error.' : plainMessage(error) ?? 'The request was rejected.';
    return { status: STATUS_OF[code], body: envelope(code, message, requestId), headers: {}, internal: status >= 500 };
  }

  if (error instanceof SyntaxError) {
    return { status: 400, body: envelope('VALIDATION_FAILED', 'The request body is not valid JSON.', requestId), headers: {}, internal: false };
  }
  // Fastify's own client errors (4xx with a statusCode) that have no entry above.
  const statusCode = (error as { statusCode?: unknown })?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const code = HTTP_STATUS_CODES[statusCode] ?? 'VALIDATION_FAILED';
    return { status: STATUS_OF[code], body: envelope(code, 'The request is malformed.', requestId), headers: {}, internal: false };
  }
  return { status: 500, body: envelope('INTERNAL', 'Internal error.', requestId, { retryable: true }), headers: {}, internal: true };
}

function plainMessage(error: HttpException): string | undefined {
  const response = error.getResponse();
  const message = typeof response === 'string' ? response : (response as { message?: unknown }).message;
  return typeof message === 'string' && message.length < 300 ? message : undefined;
}
