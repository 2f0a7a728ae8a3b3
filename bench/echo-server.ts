// The baselines for the webhook load benchmark: a bare fastify HTTPS server that parses the same
// AdmissionReview and answers with the same response probe-lint gives, with nothing else behind it:
// same bytes on the wire, same TLS and HTTP work.
//   echo-server.js CERT KEY PORT RESPONSE_FILE   answers with the response read from a file, uid swapped in
//   echo-server.js CERT KEY PORT --rules         answers with what the rules make of each review (the
//                                                same validateRequest the webhook calls), and does
//                                                nothing more: no log line, no metrics, no hooks. This is
//                                                the floor for the webhook: the rules' own work on top of
//                                                the echo's.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import type { AdmissionRequest, AdmissionResponse } from '../src/webhook/admission-review.js';

const [certFile, keyFile, port, answer] = process.argv.slice(2);

/** The response to one review. The rules are loaded only for --rules: the plain echo's memory is the RSS baseline. */
async function responder(): Promise<(request: AdmissionRequest) => AdmissionResponse> {
  if (answer === '--rules') {
    const [{ RULES }, { unknownCluster }, { Engine }, { LintSession }, { DEFAULT_LIMITS }, { NamespacePolicy }, { validateRequest }] = await Promise.all([
      import('../rules/index.js'),
      import('../src/engine/cluster-facts.js'),
      import('../src/engine/engine.js'),
      import('../src/lint/index.js'),
      import('../src/lint/admitted.js'),
      import('../src/webhook/namespace-policy.js'),
      import('../src/webhook/validate.js'),
    ]);
    const session = new LintSession(new Engine(RULES, { config: {}, cluster: unknownCluster() }));
    const policy = new NamespacePolicy({}, undefined);
    const settings = { limits: DEFAULT_LIMITS, annotationsInEnforce: false };
    return (request) => validateRequest(request, session, policy, settings).response;
  }
  const response = JSON.parse(readFileSync(answer!, 'utf8')) as AdmissionResponse;
  return (request) => ({ ...response, uid: request.uid });
}

const respond = await responder();
const app = Fastify({ https: { cert: readFileSync(certFile!), key: readFileSync(keyFile!), minVersion: 'TLSv1.2' }, bodyLimit: 8 * 1024 * 1024 });
app.post<{ Body: { request: AdmissionRequest } }>('/validate', (request, reply) =>
  reply.send({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: respond(request.body.request) }),
);
await app.listen({ port: Number(port), host: '127.0.0.1' });
console.log('listening');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
