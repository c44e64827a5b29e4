/** Seeds' password rule: 12–128 printable code points, three of four classes, no email local part. */
import { passwordPolicyIssues } from '../../../src/modules/identity/security/password-policy';

const EMAIL = 'alice.smith@example.com';
const LENGTH = /at least 12|at most 128/;
const PRINTABLE = /printable/;
const CLASSES = /three of/;
const LOCAL = /local part/;

describe('passwordPolicyIssues', () => {
  it.each([
    ['Correct-Horse1', []],
    ['correct horse battery 9', []], // lower + other (space) + digit
    ['CORRECT_HORSE_9', []], // upper + other + digit
    ['Tr0ub4dor&three', []],
    ['Ünïcödé-Pässwörd', []], // non-ASCII lower/upper count by case, '-' is other
    ['пароль-Пароль-1', []],
    ['密码密码密码密码Ab1x', []], // uncased letters count as "other"
    ['Aa1!Aa1!Aa1', [LENGTH]], // 11 characters
    ['Aa1!Aa1!Aa1!', []], // exactly 12
    ['Aa1!'.repeat(32), []], // exactly 128
    ['Aa1!'.repeat(32) + 'x', [LENGTH]], // 129
    ['alllowercaseletters', [CLASSES]],
  ] as const)('%p', (password, expected) => {
    const issues = passwordPolicyIssues(password, EMAIL);
    expect(issues).toHaveLength(expected.length);
    expected.forEach((pattern, i) => expect(issues[i]).toMatch(pattern));
  });

  it('requires three classes: two are not enough', () => {
    expect(passwordPolicyIssues('lowercase and spaces', EMAIL)).toEqual([expect.stringMatching(CLASSES)]);
    expect(passwordPolicyIssues('abcdefgh12345', EMAIL)).toEqual([expect.stringMatching(CLASSES)]);
    expect(passwordPolicyIssues('ABCDEFGH!!!!!', EMAIL)).toEqual([expect.stringMatching(CLASSES)]);
    expect(passwordPolicyIssues('abcdefGHIJKL', EMAIL)).toEqual([expect.stringMatching(CLASSES)]);
    expect(passwordPolicyIssues('abcdefGHIJK1', EMAIL)).toEqual([]);
  });

  it('counts code points, not UTF-16 units', () => {
    // 11 code points but 22 UTF-16 units: too short.
    expect(passwordPolicyIssues('😀😀😀😀😀😀😀😀Aa1', EMAIL)).toEqual([expect.stringMatching(LENGTH)]);
    // 128 emoji (256 UTF-16 units) plus nothing else: within length, but a single class.
    const issues = passwordPolicyIssues('😀'.repeat(128), EMAIL);
    expect(issues).toEqual([expect.stringMatching(CLASSES)]);
  });

  it('counts a decomposed accent once (NFKC)', () => {
    const decomposed = 'Cafe\u0301-Cafe\u0301-1'; // 'Café-Café-1' = 11 code points after NFKC, 13 before
    expect(passwordPolicyIssues(decomposed, EMAIL)).toEqual([expect.stringMatching(LENGTH)]);
  });

  it('measures the NFKC form: a ligature counts as its letters', () => {
    // U+FB03 'ﬃ' is one code point that NFKC expands to 'ffi': 10 code points typed, 12 after NFKC.
    expect(passwordPolicyIssues('\ufb03-Horse-12', EMAIL)).toEqual([]);
    // Full-width 'ＡＢＣ' are upper-case letters after NFKC too.
    expect(passwordPolicyIssues('\uff21\uff22\uff23-horse-12', EMAIL)).toEqual([]);
  });

  it('finds the email local part written in full-width letters (NFKC)', () => {
    expect(passwordPolicyIssues('Xx-\uff41\uff4c\uff49\uff43\uff45.smith-99', EMAIL)).toEqual([expect.stringMatching(LOCAL)]);
  });

  it.each([
    ['C0 NUL', 'Correct-Horse\u00001'],
    ['tab', 'Correct\tHorse1'],
    ['newline', 'Correct-Horse1\n'],
    ['DEL', 'Correct-Horse1\u007f'],
    ['C1', 'Correct-Horse1\u0085'],
    ['lone surrogate', 'Correct-Horse1\ud800'],
    ['low surrogate alone', '\udc00Correct-Horse1'],
    ['zero-width space (Cf)', 'Correct\u200bHorse1'],
    ['zero-width joiner (Cf)', 'Correct\u200dHorse1'],
    ['right-to-left override (Cf)', 'Correct\u202eHorse1'],
    ['byte order mark (Cf)', '\ufeffCorrect-Horse1'],
    ['soft hyphen (Cf)', 'Correct\u00adHorse1'],
    ['line separator (Zl)', 'Correct\u2028Horse1'],
    ['paragraph separator (Zp)', 'Correct\u2029Horse1'],
    ['private use (Co)', 'Correct-Horse1\ue000'],
    ['supplementary private use (Co)', 'Correct-Horse1\u{f0000}'],
    ['unassigned (Cn)', 'Correct-Horse1\u0378'],
    ['noncharacter (Cn)', 'Correct-Horse1\uffff'],
  ])('rejects non-printable characters: %s', (_name, password) => {
    expect(passwordPolicyIssues(password, EMAIL)).toEqual([expect.stringMatching(PRINTABLE)]);
  });

  it('allows spaces and non-ASCII symbols', () => {
    expect(passwordPolicyIssues('correct horse € battery', EMAIL)).toEqual([expect.stringMatching(CLASSES)]);
    expect(passwordPolicyIssues('Correct horse € battery', EMAIL)).toEqual([]);
  });

  it('refuses the email local part, case-insensitively', () => {
    expect(passwordPolicyIssues('xx-ALICE.SMITH-99', EMAIL)).toEqual([expect.stringMatching(LOCAL)]);
    expect(passwordPolicyIssues('Alice.Smith2024!', 'Alice.Smith@Example.com')).toEqual([expect.stringMatching(LOCAL)]);
    expect(passwordPolicyIssues('Alice-Smith-2024', EMAIL)).toEqual([]); // different separator: not the local part
  });

  it('checks the base of a +tag sub-address too', () => {
    expect(passwordPolicyIssues('Bobby-Tables-99', 'bobby+shop@example.com')).toEqual([expect.stringMatching(LOCAL)]);
    expect(passwordPolicyIssues('Bobby+Shop-Tables-99', 'bobby+shop@example.com')).toEqual([expect.stringMatching(LOCAL)]);
  });

  it('ignores local parts shorter than three characters', () => {
    expect(passwordPolicyIssues('Alpha-Bravo-42', 'al@example.com')).toEqual([]);
    expect(passwordPolicyIssues('Alpha-Bravo-42', 'alp@example.com')).toEqual([expect.stringMatching(LOCAL)]);
  });

  it('tolerates an email without a local part', () => {
    expect(passwordPolicyIssues('Alpha-Bravo-42', 'not-an-email')).toEqual([]);
    expect(passwordPolicyIssues('Alpha-Bravo-42', '@example.com')).toEqual([]);
  });

  it('reports every issue at once, in a stable order', () => {
    expect(passwordPolicyIssues('alice\u0000', 'alice@example.com')).toEqual([
      expect.stringMatching(LENGTH),
      expect.stringMatching(PRINTABLE),
      expect.stringMatching(CLASSES),
      expect.stringMatching(LOCAL),
    ]);
  });

  it('rejects a non-string password without throwing', () => {
    expect(passwordPolicyIssues(undefined as unknown as string, EMAIL)).toEqual(['Password must be a string.']);
  });
});
