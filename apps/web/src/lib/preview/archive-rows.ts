/**
 * An archive's entries as the rows of a folder tree: every folder once (also one only implied
 * by a path), folders before files, each level sorted by name, with each folder's total size.
 */
import type { ZipEntryInfo } from '@fileshare/protocol'

export interface ArchiveRow {
  /** The full path, without a folder's trailing `/`. */
  path: string
  /** The last segment of the path. */
  name: string
  depth: number
  directory: boolean
  /** A file's size; a folder's is the sum of the files under it. */
  size: number
  /** The entry's index in the archive; null for a folder the archive only implies. */
  index: number | null
}

interface Node {
  row: ArchiveRow
  children: Map<string, Node>
}

function folderNode(path: string, name: string, depth: number): Node {
  return {
    row: { path, name, depth, directory: true, size: 0, index: null },
    children: new Map(),
  }
}

export function archiveRows(entries: readonly ZipEntryInfo[]): ArchiveRow[] {
  const root = folderNode('', '', -1)
  for (const entry of entries) {
    const parts = entry.path.split('/').filter((part) => part !== '')
    if (parts.length === 0) continue
    let node = root
    parts.forEach((part, i) => {
      const path = parts.slice(0, i + 1).join('/')
      const last = i === parts.length - 1
      // A file and a folder of one name are two rows; the archive's own checks are the CLI's.
      const key = last && !entry.directory ? `f:${part}` : `d:${part}`
      let child = node.children.get(key)
      if (!child) {
        child = folderNode(path, part, i)
        if (key.startsWith('f:')) child.row.directory = false
        node.children.set(key, child)
      }
      if (last) child.row.index = entry.index
      if (last && !entry.directory) child.row.size = entry.size
      node = child
    })
  }
  const rows: ArchiveRow[] = []
  const visit = (node: Node): number => {
    const children = [...node.children.values()].sort(
      (a, b) =>
        Number(b.row.directory) - Number(a.row.directory) || a.row.name.localeCompare(b.row.name),
    )
    let total = node.row.directory ? 0 : node.row.size
    for (const child of children) {
      rows.push(child.row)
      total += visit(child)
    }
    if (node.row.directory) node.row.size = total
    return total
  }
  visit(root)
  return rows
}
