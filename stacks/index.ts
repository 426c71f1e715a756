import { readStackConfig, registerStack } from "./program";

// The Pulumi program (Pulumi.yaml: main: stacks/). The same stack file drives `stackwarden plan/apply`.
const registered = registerStack(readStackConfig());

/** Live TDE status per database, as stack outputs. */
export const transparentDataEncryption = Object.fromEntries([...registered.tde].map(([label, r]) => [label, r.status]));
