;;; Emacs 28 + eglot 1.9 with the docs' eglot block: a promptfoo test graded with no response yet, as a user
;;; does: point at the test's first line with back-to-indentation (on the dash of "  - description: …"),
;;; M-x eglot-code-actions, "Grade this test (…)". This eglot cannot be asked to open a document: the server's
;;; message names the response file; the user writes the response there and runs the action again.
;;; Environment: RUBRIC_SNIPPET (the eglot block), RUBRIC_FILE, RUBRIC_LINE (1-based line of the test's first
;;; line), RUBRIC_RESPONSE_FILE (where the message says to write), RUBRIC_RESPONSE_TEXT, RUBRIC_JUDGE,
;;; RUBRIC_OUT.  -*- lexical-binding: t -*-
(require 'json)
(require 'cl-lib)
(package-initialize)
(defvar shown nil "Messages shown, newest first.")
(let* ((errors nil) (offered nil) (column nil) (asked nil)
       (grade-at-the-test
        (lambda ()
          (goto-char (point-min))
          (forward-line (1- (string-to-number (getenv "RUBRIC_LINE"))))
          (back-to-indentation)
          (setq column (current-column))
          ;; a keyboard invocation: eglot reads the action with completing-read, answered here
          (let ((last-nonmenu-event ?\r))
            (cl-letf (((symbol-function 'completing-read)
                       (lambda (_prompt collection &rest _)
                         (setq offered (mapcar #'car collection))
                         (cl-find-if (lambda (title) (string-prefix-p "Grade this" title)) offered))))
              (eglot-code-actions (point) (point) nil t)))))
       (wait-for
        (lambda (regexp)
          (let ((deadline (+ (float-time) 120)))
            (while (and (< (float-time) deadline)
                        (not (cl-find-if (lambda (m) (string-match-p regexp m)) shown)))
              (accept-process-output nil 0.2))))))
  (condition-case err
      (progn
        (load (getenv "RUBRIC_SNIPPET") nil t)
        (setq-default eglot-workspace-configuration
                      `(:rubric (:judge (:model "openai/judge" :apiBase ,(getenv "RUBRIC_JUDGE")))))
        (setq jsonrpc-default-request-timeout 120)
        (advice-add 'message :before
                    (lambda (format-string &rest args)
                      (when format-string (push (apply #'format format-string args) shown))))
        (find-file (getenv "RUBRIC_FILE"))
        (run-hooks 'post-command-hook)  ; eglot-ensure connects from there
        (let ((deadline (+ (float-time) 45)))
          (while (and (< (float-time) deadline) (not (eglot-current-server)))
            (accept-process-output nil 0.2)))
        ;; 1. no response yet: the message says where to write it
        (funcall grade-at-the-test)
        (setq asked offered)
        (funcall wait-for "needs a response")
        ;; 2. written there (as the user would, in another buffer), then the action again
        (with-temp-file (getenv "RUBRIC_RESPONSE_FILE") (insert (getenv "RUBRIC_RESPONSE_TEXT")))
        (funcall grade-at-the-test)
        (funcall wait-for "PASS\\|FAIL"))
    (error (push (format "%S" err) errors)))
  (with-temp-file (getenv "RUBRIC_OUT")
    (insert
     (json-encode
      (list (cons 'errors (vconcat errors))
            (cons 'column column)
            (cons 'offered (vconcat asked))
            (cons 'messages (vconcat (reverse shown))))))))
(kill-emacs 0)
