/** Hands a downloaded file to the browser under its name (an object URL on a temporary link). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked after the click has been handled, so the download has its URL.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
