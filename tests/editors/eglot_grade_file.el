;;; Emacs (eglot) with the docs' eglot block and its rubric-grade-with-response: a promptfoo test
;;; graded against a response held in a file. Environment: RUBRIC_SNIPPET (the eglot block),
;;; RUBRIC_GRADE_SNIPPET (the rubric-grade-with-response block), RUBRIC_FILE, RUBRIC_LINE (1-based),
;;; RUBRIC_RESPONSE (the response file), RUBRIC_JUDGE (judge base URL), RUBRIC_OUT.  -*- lexical-binding: t -*-
(require 'json)
(package-initialize)
(defvar shown nil "Messages shown, newest first.")
(let ((errors nil))
  (condition-case err
      (progn
        (load (getenv "RUBRIC_SNIPPET") nil t)
        (load (getenv "RUBRIC_GRADE_SNIPPET") nil t)
        (setq-default eglot-workspace-configuration
                      `(:rubric (:judge (:model "openai/judge" :apiBase ,(getenv "RUBRIC_JUDGE")))))
        (advice-add 'message :before
                    (lambda (format-string &rest args)
                      (when format-string (push (apply #'format format-string args) shown))))
        (find-file (getenv "RUBRIC_FILE"))
        (run-hooks 'post-command-hook)  ; eglot-ensure connects from there
        (let ((deadline (+ (float-time) 45)))
          (while (and (< (float-time) deadline) (not (eglot-current-server)))
            (accept-process-output nil 0.2)))
        (goto-char (point-min))
        (forward-line (1- (string-to-number (getenv "RUBRIC_LINE"))))
        (forward-char 6)
        (rubric-grade-with-response (getenv "RUBRIC_RESPONSE")))
    (error (push (format "%S" err) errors)))
  (with-temp-file (getenv "RUBRIC_OUT")
    (insert (json-encode (list (cons 'errors (vconcat errors)) (cons 'messages (vconcat (reverse shown))))))))
(kill-emacs 0)
