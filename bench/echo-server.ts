// The baseline for the webhook load benchmark: a bare fastify HTTPS server that parses the same
// AdmissionReview and answers with the same response probe-lint gives (read from a file, uid
// swapped in), with no rule engine behind it: same bytes on the wire, same TLS and HTTP work.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [certFile, keyFile, port, responseFile] = process.argv.slice(2);
const response = JSON.parse(readFileSync(responseFile!, 'utf8')) as Record<string, unknown>;
const app = Fastify({ https: { cert: readFileSync(certFile!), key: readFileSync(keyFile!), minVersion: 'TLSv1.2' }, bodyLimit: 8 * 1024 * 1024 });
app.post<{ Body: { request: { uid: string } } }>('/validate', (request, reply) =>
  reply.send({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { ...response, uid: request.body.request.uid },
  }),
);
await app.listen({ port: Number(port), host: '127.0.0.1' });
console.log('listening');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
