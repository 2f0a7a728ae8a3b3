// admission.k8s.io/v1 AdmissionReview: what the API server sends and must get back
// (staging/src/k8s.io/api/admission/v1/types.go; apiserver request/admissionreview.go).

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
const OPERATIONS = new Set<string>(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: Operation;
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; message: string; reason?: string };
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
}

/** The longest uid echoed back or logged: the API server's are UUIDs (36 characters). */
const MAX_UID_LENGTH = 128;

/**
 * The envelope checked by hand, so each mistake gets a message that says what was expected (a
 * v1beta1 review is told that only v1 is supported). The object inside is checked by the rules.
 */
export function readAdmissionReview(body: unknown): { request: AdmissionRequest } | { error: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { error: 'the body must be a JSON AdmissionReview object' };
  const review = body as Record<string, unknown>;
  if (review.apiVersion !== ADMISSION_API_VERSION) {
    return {
      error: `only ${ADMISSION_API_VERSION} is supported (got apiVersion ${JSON.stringify(review.apiVersion ?? null).slice(0, 80)}); set admissionReviewVersions: ["v1"] in the webhook configuration`,
    };
  }
  if (review.kind !== 'AdmissionReview') return { error: `kind must be AdmissionReview (got ${JSON.stringify(review.kind ?? null).slice(0, 80)})` };
  const request = review.request;
  if (request === null || typeof request !== 'object' || Array.isArray(request))
    return { error: 'request is missing: an AdmissionReview from the API server carries one' };
  const fields = request as Record<string, unknown>;
  if (typeof fields.uid !== 'string' || fields.uid === '') return { error: 'request.uid must be a non-empty string' };
  if (fields.uid.length > MAX_UID_LENGTH) return { error: `request.uid is longer than ${MAX_UID_LENGTH} characters` };
  if (typeof fields.operation !== 'string' || !OPERATIONS.has(fields.operation))
    return { error: 'request.operation must be one of CREATE, UPDATE, DELETE, CONNECT' };
  const kind = fields.kind as Record<string, unknown> | null | undefined;
  if (kind === null || typeof kind !== 'object' || typeof kind.kind !== 'string') return { error: 'request.kind must be an object with a kind' };
  for (const name of ['namespace', 'name'] as const) {
    if (fields[name] !== undefined && typeof fields[name] !== 'string') return { error: `request.${name} must be a string` };
  }
  if (fields.dryRun !== undefined && typeof fields.dryRun !== 'boolean') return { error: 'request.dryRun must be true or false' };
  return { request: request as AdmissionRequest };
}

/** The response envelope: same apiVersion, kind and uid as the request. */
export function admissionReview(response: AdmissionResponse): { apiVersion: string; kind: 'AdmissionReview'; response: AdmissionResponse } {
  return { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response };
}
