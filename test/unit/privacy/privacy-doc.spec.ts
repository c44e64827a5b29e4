/** docs/privacy.md's tables are what the modules declare (npm run privacy-doc), and every module declares its events. */
import { readFileSync } from 'node:fs';
import { PRIVACY_FILE, privacyTables, withTables } from '../../../src/cli/privacy-doc';
import { STREAM_MODULES } from '../../../src/platform/kafka/topics';
import { declaredEventClasses, pathsOfClass } from '../../../src/platform/privacy/field-classes';

describe('docs/privacy.md', () => {
  it('holds the generated tables as the code declares them (npm run privacy-doc)', () => {
    const doc = readFileSync(PRIVACY_FILE, 'utf8');
    expect(withTables(doc, privacyTables())).toBe(doc);
  });

  it('has a declaration from every module that publishes events, and the secrets where they are', () => {
    const declared = declaredEventClasses();
    expect(new Set(declared.map((d) => d.module))).toEqual(new Set(STREAM_MODULES.map(([, m]) => m)));
    const secrets = Object.fromEntries(declared.map((d) => [d.type, pathsOfClass(d.fields, 'secret')]).filter(([, p]) => p.length > 0));
    expect(secrets).toEqual({
      AccountRegistered: ['password_hash'],
      ActivationIssued: ['token_hash'],
      AuthenticatorEnrollmentStarted: ['secret_sealed'],
      AuthenticatorEnrolled: ['recovery_code_hashes'],
      RecoveryCodeUsed: ['code_hash'],
      ContactChangeRequested: ['token_hash'],
      SessionStarted: ['token_hash'],
      TenantInvitationIssued: ['token_hash'],
      AiWalletBindingCreated: ['client_secret_hash'],
      WorkloadTokenIssued: ['token_hash'],
      PriceProviderRegistered: ['key_hash'],
    });
  });
});
