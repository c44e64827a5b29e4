/** OpenAPI property options the platform's records share (ids, digests): one place for their patterns. */
const HEX32_PATTERN = '^[0-9a-f]{32}$';

/** A 32-hex id (uuid without hyphens). */
export const HEX32_ID = { pattern: HEX32_PATTERN } as const;

/** A SHA-256 digest in hex (commitments). */
export const SHA256_HEX = { pattern: '^[0-9a-f]{64}$' } as const;

/** A path parameter naming one resource by its 32-hex id. */
export const hex32Param = (what: string) => ({ description: `${what} (32 lowercase hex characters).`, pattern: HEX32_PATTERN, example: '0123456789abcdef0123456789abcdef' }) as const;
