/** A compose file of the repository run as one podman-compose project. */
import { podman, runTool, type RunResult } from './podman.js'
import { REPO_ROOT } from './service-image.js'

export interface ComposeProject {
  /** `podman-compose … args` for this project and file, with its variables. */
  run(args: string[]): Promise<RunResult>
  /** The running containers of one service of the project. */
  containers(service: string): Promise<string[]>
}

export function composeProject(
  file: string,
  project: string,
  env: Record<string, string>,
): ComposeProject {
  return {
    run: (args) =>
      runTool('podman-compose', ['--project-name', project, '--file', file, ...args], {
        cwd: REPO_ROOT,
        env,
        timeoutMs: 180_000,
      }),
    containers: async (service) => {
      const { stdout } = await podman([
        'ps',
        '--filter',
        `label=io.podman.compose.project=${project}`,
        '--filter',
        `label=com.docker.compose.service=${service}`,
        '--format',
        '{{.Names}}',
      ])
      return stdout.split('\n').filter((name) => name !== '')
    },
  }
}
