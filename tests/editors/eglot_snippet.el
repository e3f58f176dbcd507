;;; Runs an eglot configuration snippet from docs/editors.md, opens a file and records the
;;; diagnostics the language server sends (through flymake). Environment: RUBRIC_SNIPPET,
;;; RUBRIC_FILE, RUBRIC_OUT.  -*- lexical-binding: t -*-
(require 'json)
;; What an interactive start does: activate installed packages (yaml-mode, and eglot on
;; Emacs < 29 from package.el or Debian's elpa-eglot); batch mode skips it.
(package-initialize)
(let ((errors nil) (diags nil) (server nil) (mode nil))
  (condition-case err
      (progn
        (load (getenv "RUBRIC_SNIPPET") nil t)
        (find-file (getenv "RUBRIC_FILE"))
        (setq mode major-mode)
        ;; eglot-ensure connects from post-command-hook, which batch mode never runs
        (run-hooks 'post-command-hook)
        (let ((deadline (+ (float-time) 45)))
          (while (and (< (float-time) deadline) (null (setq diags (flymake-diagnostics))))
            (accept-process-output nil 0.2)))
        (setq server (ignore-errors (process-command (jsonrpc--process (eglot-current-server)))))
        ;; positions are read in the file's buffer, before the result is written
        (setq diags (mapcar (lambda (d)
                              (list (cons 'line (line-number-at-pos (flymake-diagnostic-beg d)))
                                    (cons 'text (flymake-diagnostic-text d))))
                            diags)))
    (error (push (format "%S" err) errors)))
  (with-temp-file (getenv "RUBRIC_OUT")
    (insert
     (json-encode
      (list (cons 'errors (vconcat errors))
            (cons 'mode (format "%s" mode))
            (cons 'server (vconcat server))
            (cons 'diagnostics (vconcat diags)))))))
(kill-emacs 0)
