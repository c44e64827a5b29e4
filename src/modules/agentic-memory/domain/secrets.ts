/**
 * Credentials and private material never enter agentic memory: questions, titles, summaries, content, answers and
 * every other text a caller sends are scanned before anything is decided, and a hit is a 400 naming the field and
 * the kind of credential (never echoing it).
 *
 * Why a pattern list of our own: the maintained secret scanner for JavaScript, secretlint, ships only as ES modules
 * (and needs Node 22 from v13 on), which this CommonJS build and Jest's module system cannot load. The patterns below
 * follow its recommended preset's rules (private keys, AWS, GCP, GitHub, Slack, SendGrid, npm, OpenAI, Anthropic,
 * basic auth and passwords in URLs) plus the platform's own token prefixes, bearer tokens and JWTs. Each pattern needs
 * the shape of a credential (a known prefix, a PEM armour, a `key = value` assignment), so commitments (64 hex
 * characters) and identifiers (32) pass.
 */

export interface SecretPattern {
  kind: string;
  pattern: RegExp;
}

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  { kind: 'private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  // hcs_ session, hcsu_ step-up, hcat_ activation, hcct_ contact change, hcwt_ workload token, hcws_ workload client secret.
  { kind: 'platform token', pattern: /\bhc(?:s|su|at|ct|wt|ws)_[A-Za-z0-9_-]{8,}/ },
  { kind: 'bearer token', pattern: /\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*/i },
  { kind: 'basic authorization header', pattern: /\bbasic\s+[A-Za-z0-9+/]{20,}={0,2}(?![A-Za-z0-9+/=])/i },
  { kind: 'JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: 'password in a URL', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/?#]+:[^\s@/?#]+@/i },
  { kind: 'AWS access key', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/ },
  { kind: 'AWS secret access key', pattern: /aws.{0,20}?secret.{0,20}?[\s'"=:]+[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/i },
  { kind: 'Google Cloud service account key', pattern: /"type"\s*:\s*"service_account"/ },
  { kind: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/ },
  { kind: 'GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/ },
  { kind: 'GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { kind: 'Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'Slack webhook URL', pattern: /hooks\.slack\.com\/services\/T[A-Za-z0-9]+\/B[A-Za-z0-9]+\/[A-Za-z0-9]+/ },
  { kind: 'SendGrid API key', pattern: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/ },
  { kind: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { kind: 'Stripe key', pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { kind: 'OpenAI or Anthropic API key', pattern: /\bsk-(?:ant-[a-z0-9]+-|proj-|svcacct-)?[A-Za-z0-9_-]{20,}/ },
  { kind: 'hex private key', pattern: /\bpriv(?:ate)?[\s_-]?key\b.{0,8}?(?:0x)?[0-9a-fA-F]{64}\b/i },
  {
    kind: 'credential assignment',
    // The value: 6+ characters with a digit or symbol, or 16+ of anything ("secret: always verify" is prose).
    pattern:
      /\b(?:password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key)\s*[:=]\s*['"]?(?:(?=[^\s'",;]*[^A-Za-z\s'",;])[^\s'",;]{6,}|[^\s'",;]{16,})/i,
  },
];

/** Personal data an agent must not carry into shared memory: e-mail addresses (the seeds' "private material"). */
export const PRIVATE_PATTERNS: readonly SecretPattern[] = [{ kind: 'e-mail address', pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/ }];

/** The kind of credential `text` appears to hold, or null. */
export function credentialIn(text: string): string | null {
  for (const { kind, pattern } of SECRET_PATTERNS) if (pattern.test(text)) return kind;
  return null;
}

/** A credential or private material in `text` (what agents send is held to both), or null. */
export function privateMaterialIn(text: string): string | null {
  const credential = credentialIn(text);
  if (credential) return credential;
  for (const { kind, pattern } of PRIVATE_PATTERNS) if (pattern.test(text)) return kind;
  return null;
}

export interface Finding {
  /** Path below the value scanned (`.detail`, `[2]`), empty for the value itself. */
  path: string;
  kind: string;
}

/** The first string (or object key) in a JSON value that `detect` flags. */
export function findIn(value: unknown, detect: (text: string) => string | null, path = ''): Finding | null {
  if (typeof value === 'string') {
    const kind = detect(value);
    return kind ? { path, kind } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findIn(value[i], detect, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const keyKind = detect(key);
      if (keyKind) return { path: `${path}.${key}`, kind: keyKind };
      const found = findIn(v, detect, `${path}.${key}`);
      if (found) return found;
    }
  }
  return null;
}
