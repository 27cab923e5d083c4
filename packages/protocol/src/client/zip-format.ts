/**
 * The record signatures and fixed sizes of the ZIP format (PKWARE APPNOTE 6.3.10, §4.3), shared
 * by the archive writer and the reader of an archive's directory.
 */

export const LOCAL_HEADER = 0x04034b50
export const DATA_DESCRIPTOR = 0x08074b50
export const CENTRAL_HEADER = 0x02014b50
export const ZIP64_END = 0x06064b50
export const ZIP64_LOCATOR = 0x07064b50
export const END = 0x06054b50

export const LOCAL_HEADER_SIZE = 30
export const CENTRAL_HEADER_SIZE = 46
export const END_SIZE = 22
export const ZIP64_END_SIZE = 56
export const ZIP64_LOCATOR_SIZE = 20

/** §4.5.3: the extra field holding the 64-bit sizes and offset. */
export const ZIP64_EXTRA = 0x0001
/** Info-ZIP's extended timestamp: flags, then Unix seconds (modification time first). */
export const UNIX_TIME_EXTRA = 0x5455
/** §4.4.4: bit 0 = encrypted; bit 11 = UTF-8 names. */
export const FLAG_ENCRYPTED = 0x0001
export const FLAG_UTF8 = 0x0800

export const U16_MAX = 0xffff
export const U32_MAX = 0xffffffff
