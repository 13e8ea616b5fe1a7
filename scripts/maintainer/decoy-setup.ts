// A setup file for the decoy project only (vitest.config.ts). A decoy is caught as soon as one test
// of its step fails, so the tests after that first failure are skipped: the check's verdict is the
// same, and about two thirds of the decoy runs' test time (the property tests after the catch) is saved.
// The stubs project does not use it: there, every single test must fail.
import { beforeEach } from "vitest";

// Vitest runs a setup file afresh before each test file, also where files share a worker (isolate:
// false), so each decoy's run starts uncaught.
let caught = false;

beforeEach(({ skip, onTestFailed }) => {
  if (caught) skip("the decoy is already caught by an earlier test");
  onTestFailed(() => {
    caught = true;
  });
});
