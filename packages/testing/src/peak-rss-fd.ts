/** The file descriptor on which the peak-RSS preload reports. */
export const PEAK_RSS_FD = 3
