// Everything rendering needs, in one module that read-inputs loads only when there is a chart, a
// kustomization or a rendered stream: plain linting never loads child processes, sockets, zlib or
// the render cache.
export { renderChart } from './helm.js';
export { helmOrigin } from '../origin/helm-origin.js';
export { renderKustomization } from './kustomize.js';
export { RenderCache } from './render-cache.js';
export { DEFAULT_SANDBOX_LIMITS, RenderSandbox } from './sandbox.js';
export { TreeGuard } from '../read/tree-guard.js';
