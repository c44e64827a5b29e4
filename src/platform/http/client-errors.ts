/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers too large, an unknown method, a body framed
 * by both Content-Length and Transfer-Encoding, a request not received in time): answered on the raw socket, in the
 * platform's error envelope with a request id, then the connection is closed. Fastify's own default writes a bare
 * `{"error": …}` without one (its `clientErrorHandler` option is where this plugs in).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { STATUS_OF, type ErrorCode } from '../errors';
import { envelope } from './error-envelope';

const PARSER_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT', message: 'The request was not received in time.' },
  HPE_HEADER_OVERFLOW: { code: 'HEADERS_TOO_LARGE', message: 'The request headers are too large.' },
  HPE_INVALID_METHOD: { code: 'METHOD_NOT_IMPLEMENTED', message: 'The request method is not supported.' },
  HPE_UNEXPECTED_CONTENT_LENGTH: { code: 'VALIDATION_FAILED', message: 'A request may not carry both Content-Length and Transfer-Encoding.' },
  HPE_INVALID_CONTENT_LENGTH: { code: 'VALIDATION_FAILED', message: 'The Content-Length header is malformed.' },
  HPE_INVALID_TRANSFER_ENCODING: { code: 'VALIDATION_FAILED', message: 'The Transfer-Encoding header is malformed.' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { code: 'VALIDATION_FAILED', message: 'The chunked body is malformed.' },
};
const MALFORMED = { code: 'VALIDATION_FAILED' as ErrorCode, message: 'The request is malformed.' };

/** The raw HTTP/1.1 response for a parser error: status line, headers and the envelope. */
export function clientErrorResponse(errorCode: string | undefined, requestId: string): { status: number; text: string } {
  const { code, message } = (errorCode && PARSER_ERRORS[errorCode]) || MALFORMED;
  const status = STATUS_OF[code];
  const body = JSON.stringify(envelope(code, message, requestId));
  const headers = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'X-Content-Type-Options: nosniff',
    'Cache-Control: no-store',
    'Connection: close',
  ];
  return { status, text: `${headers.join('\r\n')}\r\n\r\n${body}` };
}

/** Fastify's clientErrorHandler: answer what can still be answered, log it, close the connection. */
export function platformClientErrorHandler(newRequestId: () => string, log: Logger) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset connection has nobody left to answer (Node's own rule).
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const requestId = newRequestId();
    const { status, text } = clientErrorResponse(error.code, requestId);
    log.info({ request_id: requestId, status, parser_error: error.code }, 'request refused by the HTTP parser');
    if (socket.writable) socket.end(text);
    socket.destroySoon?.();
  };
}
