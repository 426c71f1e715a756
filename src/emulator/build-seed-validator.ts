import { seedSchema, SEED_AJV_OPTIONS } from "./seed";
import { writeSeedValidator } from "./seed-validator";
import { LOCAL_SERVICES } from "./services";

/** `npm run build`, after tsc: compiles the seed schema of every local service into dist (seed-validator.ts says why). */
writeSeedValidator(__dirname, seedSchema(LOCAL_SERVICES), SEED_AJV_OPTIONS);
