// admission.k8s.io/v1 AdmissionReview: what the API server sends and must get back (reference §5).

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

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

/** The envelope the API server sends, checked on the routes; the object inside is checked by the rules. */
export const ADMISSION_REVIEW_SCHEMA = {
  type: 'object',
  required: ['apiVersion', 'kind', 'request'],
  properties: {
    apiVersion: { const: ADMISSION_API_VERSION },
    kind: { const: 'AdmissionReview' },
    request: {
      type: 'object',
      required: ['uid', 'operation', 'kind'],
      properties: {
        uid: { type: 'string', minLength: 1 },
        operation: { enum: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] },
        kind: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } } },
        namespace: { type: 'string' },
        name: { type: 'string' },
        dryRun: { type: 'boolean' },
      },
    },
  },
} as const;

export interface AdmissionReviewRequest {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: 'AdmissionReview';
  request: AdmissionRequest;
}

/** The response envelope: same apiVersion, kind and uid as the request. */
export function admissionReview(response: AdmissionResponse): { apiVersion: string; kind: 'AdmissionReview'; response: AdmissionResponse } {
  return { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response };
}
