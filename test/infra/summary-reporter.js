/**
 * Prints one plain closing line, "tests: N passed, N failed, N skipped", as the very last line of the run, so CI
 * reads it the way it reads other runners' summaries (Jest's own "Tests:" line has another shape).
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`;
    // Jest prints its own summary after the reporters; the exit hook puts ours after it.
    process.once('exit', () => process.stderr.write(line));
  }
}
module.exports = SummaryReporter;
