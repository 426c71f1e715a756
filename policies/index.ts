import { PolicyPack } from "@pulumi/policy";
import { policies } from "./policies";

// Constructing the pack starts the analyzer's gRPC server, so it happens only here; tests import
// ./policies instead.
new PolicyPack("stackwarden", { policies: policies() });
