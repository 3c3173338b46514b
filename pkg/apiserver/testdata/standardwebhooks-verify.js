// Verifies one webhook delivery with the Standard Webhooks reference library for Node
// (npm standardwebhooks), as a partner's receiver in JavaScript would: the signing secret
// as issued, the request's headers and its raw body. Standard input is JSON:
// {"secret": "whsec_...", "headers": {"webhook-id": "...", ...}, "body": "<base64 of the raw body>"}.
// Prints {"verified": true, "id": "<the verified event's id>"} and exits 0, or prints
// {"verified": false, "error": "..."} and exits 1.
"use strict";

const { Webhook } = require("standardwebhooks");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  input += chunk;
});
process.stdin.on("end", () => {
  const { secret, headers, body } = JSON.parse(input);
  try {
    const event = new Webhook(secret).verify(Buffer.from(body, "base64"), headers);
    process.stdout.write(JSON.stringify({ verified: true, id: event.id }) + "\n");
  } catch (err) {
    process.stdout.write(JSON.stringify({ verified: false, error: String(err.message) }) + "\n");
    process.exitCode = 1;
  }
});
