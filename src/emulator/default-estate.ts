import { join } from "node:path";
import { PROJECT_ROOT } from "../platform/version";

/** The estate behind stacks/Pulumi.dev.yaml, served when no seed is given (`emulator`, `npm start`). */
export const DEFAULT_ESTATE = join(PROJECT_ROOT, "stacks", "dev.estate.yaml");
