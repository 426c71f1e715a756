// Vitest runs the TypeScript sources, which `require` cannot load: the SQL emulator's resource
// modules (found by listing src/emulator/services/sql/resources/) are imported here, through
// Vitest's own loader, before a test file first uses the emulator. Compiled code needs no such step.
import { preloadSqlResources } from "../../src/emulator/services/sql/sql-resources";

await preloadSqlResources();
