import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stateDirs } from "../../../src/platform/settings/state-dirs";
import { openFileState } from "../../../src/platform/state/files/file-state";
import { stateContract } from "./state-contract";

/** The state contract over local files (the default), each run in a new working directory. */
stateContract("local files", () => {
  const cwd = mkdtempSync(join(tmpdir(), "stackwarden-state-files-"));
  return openFileState(stateDirs(cwd, {}), cwd);
});
