import type * as pulumi from "@pulumi/pulumi";
import { certificateProbeChanged, checkCertificateProbeInputs, runCertificateProbe } from "../src/interfaces/pulumi/certificate-probe";
import { isUnknown } from "./unknown-value";

/**
 * The dynamic provider of a post-deploy certificate probe, as the plugin calls it (loaded from dist/
 * by `providerText("certificateProbe")`). Each method is one call into
 * `src/interfaces/pulumi/certificate-probe`. A probe proves the deployment it follows: its
 * `deployment` input follows the TDE resources' outputs, so an update of one of them (unknown during
 * the preview) makes `diff` report a change and `pulumi up` runs the probe again after it. With
 * nothing changed, `diff` reports none: a converged stack previews and refreshes clean
 * (`--expect-no-changes`). `stackwarden probe` runs the probes on demand.
 * Parameters are resolved here, at call time, from this process's environment (`${env:NAME}`) or
 * from the decrypted secret Pulumi hands over; neither is returned as an output.
 */
export const certificateProbeProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    return { inputs: news, failures: checkCertificateProbeInputs(news, isUnknown, process.env) };
  },
  async diff(_id, olds, news) {
    return { changes: certificateProbeChanged(olds, news, isUnknown) };
  },
  async create(inputs) {
    return runCertificateProbe(inputs, process.env);
  },
  async read(id, props) {
    // A refresh keeps what the probe found when it ran: running it is the job of `up`.
    return { id, props };
  },
  async update(_id, _olds, news) {
    return { outs: (await runCertificateProbe(news, process.env)).outs };
  },
  async delete() {
    // Nothing to remove: a probe only asks the issuer for a document.
  },
};
