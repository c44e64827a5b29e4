/**
 * The platform's error vocabulary. Every error that reaches a client is one of these (or is mapped to one by the
 * HTTP exception filter); the code fixes the HTTP status, see PLATFORM.md section 4.
 */
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'STEP_UP_REQUIRED'
  | 'NOT_FOUND'
  | 'VERSION_CONFLICT'
  | 'STATE_CONFLICT'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'CREDITS_REQUIRED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RULE_VIOLATION'
  | 'RATE_LIMITED'
  // Raised below the framework, by Node's HTTP parser (src/platform/http/client-errors.ts): PLATFORM.md's list has no
  // code for these statuses, so each gets its own.
  | 'REQUEST_TIMEOUT'
  | 'HEADERS_TOO_LARGE'
  | 'METHOD_NOT_IMPLEMENTED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL';

export const STATUS_OF: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  CREDITS_REQUIRED: 402,
  FORBIDDEN: 403,
  STEP_UP_REQUIRED: 403,
  NOT_FOUND: 404,
  VERSION_CONFLICT: 409,
  STATE_CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RULE_VIOLATION: 422,
  RATE_LIMITED: 429,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  METHOD_NOT_IMPLEMENTED: 501,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
};

export interface ErrorDetail {
  field: string;
  issue: string;
}

export interface PlatformErrorOptions {
  details?: ErrorDetail[];
  retryable?: boolean;
  currentVersion?: bigint | number | null;
  /** Seconds, for RATE_LIMITED and SERVICE_UNAVAILABLE. */
  retryAfter?: number;
}

export class PlatformError extends Error {
  readonly details: ErrorDetail[];
  readonly retryable: boolean;
  readonly currentVersion?: bigint | number | null;
  readonly retryAfter?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: PlatformErrorOptions = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.details = options.details ?? [];
    this.retryable = options.retryable ?? (code === 'RATE_LIMITED' || code === 'SERVICE_UNAVAILABLE');
    this.currentVersion = options.currentVersion;
    this.retryAfter = options.retryAfter;
  }

  get status(): number {
    return STATUS_OF[this.code];
  }
}

export class ValidationFailed extends PlatformError {
  constructor(message: string, details: ErrorDetail[] = []) {
    super('VALIDATION_FAILED', message, { details });
  }
}

export class NotFound extends PlatformError {
  constructor(message = 'The resource does not exist.') {
    super('NOT_FOUND', message);
  }
}

export class StateConflict extends PlatformError {
  constructor(message: string, options: PlatformErrorOptions = {}) {
    super('STATE_CONFLICT', message, options);
  }
}

export class RuleViolation extends PlatformError {
  constructor(message: string, details: ErrorDetail[] = []) {
    super('RULE_VIOLATION', message, { details });
  }
}

/**
 * A stream was not at the revision the writer expected. `currentVersion` is the stream's actual revision
 * (null when the stream does not exist), reported to clients as `current_version`.
 */
export class VersionConflict extends PlatformError {
  constructor(
    readonly stream: string,
    readonly expected: string,
    actual: bigint | null,
  ) {
    super('VERSION_CONFLICT', `Stream ${stream} is at version ${actual === null ? 'none' : actual.toString()}, expected ${expected}.`, {
      currentVersion: actual,
    });
  }
}
