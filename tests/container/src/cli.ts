/** The built `fileshare` command, run from the host against a container's published port. */
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../../apps/cli/dist/index.js', import.meta.url))

export class Cli {
  private readonly env: NodeJS.ProcessEnv

  /** A command whose config folder is under `work`, so nothing of the user's is touched. */
  constructor(private readonly work: string) {
    this.env = { ...process.env, HOME: work, XDG_CONFIG_HOME: join(work, '.config') }
  }

  /** Sends `path` to `server` with downloads to spare; answers the share link. */
  async send(server: string, path: string): Promise<string> {
    const args = ['send', path, '--server', server, '--downloads', '5', '--json']
    return (JSON.parse(await this.run(args)) as { link: string }).link
  }

  /** Downloads `link` into a new folder and answers the bytes of the file `name` in it. */
  async get(link: string, name: string): Promise<Buffer> {
    await mkdir(join(this.work, 'downloads'), { recursive: true })
    const dir = await mkdtemp(join(this.work, 'downloads', 'get-'))
    await this.run(['get', link, '--output', dir])
    return readFile(join(dir, name))
  }

  /** Creates a note of `text` allowing `views` views on `server`; answers its link. */
  async note(server: string, text: string, views: number): Promise<string> {
    const args = ['note', text, '--views', String(views), '--server', server, '--json']
    return (JSON.parse(await this.run(args)) as { link: string }).link
  }

  /** Reads the note at `link`, using up one of its views; answers its text. */
  async noteGet(link: string): Promise<string> {
    return this.run(['note', 'get', link])
  }

  private async run(args: string[]): Promise<string> {
    const { stdout } = await run(process.execPath, [CLI, ...args], {
      env: this.env,
      timeout: 120_000,
    })
    return stdout
  }
}
