/*
 * Sample signature rules for stackwarden's artifact gate. They match harmless, made-up marker
 * strings (no real malware signature is in this repository): plant one of the markers in a file
 * to see the gate fail, remove it to see the gate pass.
 */

rule stackwarden_gate_test_marker : test_marker
{
  meta:
    description = "The gate's test string, an EICAR-like marker invented for stackwarden: any file carrying it must be stopped"
    author = "stackwarden"
    severity = "high"
  strings:
    $marker = "STACKWARDEN-GATE-TEST-MARKER-7E3C" ascii wide
  condition:
    $marker
}

rule stackwarden_test_private_key : credentials test_marker
{
  meta:
    description = "A made-up private key header: shipping key material in an artifact must be stopped"
    author = "stackwarden"
    severity = "high"
  strings:
    $header = "-----BEGIN STACKWARDEN TEST PRIVATE KEY-----"
  condition:
    $header
}
